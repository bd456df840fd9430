import type { BuiltinExpr } from '../ast/expr.js';
import type { PropertyAccessor } from '../ast/property.js';
import type { Range } from '../diagnostics.js';
import type { EscAccessor, EscExpr, EscPropertyAccessor } from '../expr.js';
import { always, arraySchema, recordSchema, stringSchema, toJSONSchema, tupleSchema, type Schema } from '../schema/schema.js';
import { jsonSchemaSchema } from '../schema/json-schema.js';
import { defRange, type AccessorSlot, type EvalExpr } from './value.js';

const zeroPos = { line: 0, column: 0, byte: 0 };

function rangeOf(range: Range | undefined, environment: string): Range {
  return range ?? { environment, begin: zeroPos, end: zeroPos };
}

function accessorOf(accessor: PropertyAccessor, environment: string): EscAccessor {
  const range = rangeOf(accessor.range, environment);
  if (accessor.kind === 'name') return { key: accessor.name, range };
  return typeof accessor.index === 'number' ? { index: accessor.index, range } : { key: accessor.index, range };
}

function slotsOf(slots: AccessorSlot[], environment: string): EscPropertyAccessor[] {
  return slots.map((slot) => ({
    ...accessorOf(slot.accessor, environment),
    value: slot.value ? defRange(slot.value.def, environment) : { begin: zeroPos, end: zeroPos, environment: '' },
  }));
}

/** An evaluated expression in ESC's shape (esc.Expr), with the schema evaluation found for it. */
export function exportExpr(x: EvalExpr, environment: string): EscExpr {
  const out: EscExpr = { range: defRange(x, environment), schema: toJSONSchema(x.schema) };
  if (x.base !== undefined) out.base = exportExpr(x.base.def, environment);
  const repr = x.repr;
  switch (repr.kind) {
    case 'missing':
      break;
    case 'literal': {
      const node = repr.node;
      if (node.kind === 'boolean' || node.kind === 'number' || node.kind === 'string') out.literal = node.value;
      break;
    }
    case 'interpolate':
      out.interpolate = repr.parts.map((p) => ({
        ...(p.text !== '' ? { text: p.text } : {}),
        ...(p.slots && p.slots.length > 0 ? { value: slotsOf(p.slots, environment) } : {}),
      }));
      break;
    case 'symbol':
      out.symbol = slotsOf(repr.slots, environment);
      break;
    case 'access': {
      const accessor = accessorOf(repr.accessor, environment);
      if (repr.receiver.def.repr.kind === 'access') {
        const receiver = exportExpr(repr.receiver.def, environment);
        receiver.access!.accessors.push(accessor);
        return receiver;
      }
      out.access = { receiver: defRange(repr.receiver.def, environment), accessors: [accessor] };
      break;
    }
    case 'array':
      if (repr.elements.length > 0) out.list = repr.elements.map((e) => exportExpr(e, environment));
      break;
    case 'object': {
      const node = repr.node;
      const keyRanges: Record<string, Range> = {};
      for (const entry of node.kind === 'object' ? node.entries : []) {
        if (entry.key !== undefined) keyRanges[entry.key.value] = rangeOf(entry.key.syntax?.range, environment);
      }
      if (Object.keys(keyRanges).length > 0) out.keyRanges = keyRanges;
      if (repr.properties.size > 0) out.object = Object.fromEntries([...repr.properties].map(([k, v]) => [k, exportExpr(v, environment)]));
      break;
    }
    case 'builtin':
      out.builtin = exportBuiltin(repr, environment);
      break;
  }
  return out;
}

type BuiltinRepr = Extract<EvalExpr['repr'], { kind: 'builtin' }>;

function exportBuiltin(repr: BuiltinRepr, environment: string): NonNullable<EscExpr['builtin']> {
  const node = repr.node as BuiltinExpr;
  const sub = (name: string): EscExpr => exportExpr(repr.args[name]!, environment);
  const call = (argSchema: Schema, arg: EscExpr): NonNullable<EscExpr['builtin']> => ({
    name: node.name.value,
    nameRange: rangeOf(node.name.syntax?.range, environment),
    argSchema: toJSONSchema(argSchema),
    arg,
  });
  const argRange = rangeOf(node.args.syntax?.range, environment);
  const inputs = repr.inputSchema ?? always();
  switch (node.kind) {
    case 'fromBase64':
    case 'toBase64':
      return call(stringSchema(), sub('value'));
    case 'fromJSON':
    case 'toJSON':
    case 'toString':
    case 'final':
      return call(always(), sub('value'));
    case 'concat':
      return call(arraySchema(arraySchema(always())), sub('value'));
    case 'join':
      return call(tupleSchema([stringSchema(), arraySchema(stringSchema())]), { range: argRange, list: [sub('delimiter'), sub('operand')] });
    case 'split':
      return call(tupleSchema([stringSchema(), stringSchema()]), { range: argRange, list: [sub('delimiter'), sub('operand')] });
    case 'validate':
      return call(recordSchema({ schema: jsonSchemaSchema(), value: always() }), { range: argRange, object: { schema: sub('schema'), value: sub('value') } });
    case 'secret':
      if (repr.args.plaintext !== undefined) return call(always(), sub('plaintext'));
      return call(always(), { range: argRange, object: { ciphertext: sub('ciphertext') } });
    case 'open':
      if (node.name.value === 'fn::open') {
        return call(recordSchema({ provider: stringSchema(), inputs }), { range: rangeOf(undefined, ''), object: { provider: providerExpr(repr, environment), inputs: sub('inputs') } });
      }
      return call(inputs, sub('inputs'));
    case 'rotate': {
      const state = repr.stateSchema ?? always();
      if (node.name.value === 'fn::rotate') {
        return call(recordSchema({ provider: stringSchema(), inputs, state }), {
          range: rangeOf(undefined, ''),
          object: { provider: providerExpr(repr, environment), inputs: sub('inputs'), state: sub('state') },
        });
      }
      return call(recordSchema({ inputs, state }), { range: rangeOf(undefined, ''), object: { inputs: sub('inputs'), state: sub('state') } });
    }
  }
}

function providerExpr(repr: BuiltinRepr, environment: string): EscExpr {
  const provider = repr.args.provider;
  return provider ? exportExpr(provider, environment) : { range: rangeOf(undefined, environment), schema: true };
}
