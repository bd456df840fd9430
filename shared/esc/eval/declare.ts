import { exprError, type Expr } from '../ast/expr.js';
import { joinKey } from '../ast/path.js';
import type { Diagnostic } from '../diagnostics.js';
import { always, arraySchema, booleanSchema, mapSchema, nullSchema, numberSchema, stringSchema, type Schema } from '../schema/schema.js';
import type { PropertyAccessor } from '../ast/property.js';
import { missingExpr, newExpr, type AccessorSlot, type EvalExpr, type Value } from './value.js';

/** The schema a builtin's result has before evaluation refines it. */
const BUILTIN_SCHEMAS: Record<string, () => Schema> = {
  concat: () => arraySchema(always()),
  fromBase64: () => stringSchema(),
  validate: always,
  final: always,
  fromJSON: always,
  join: () => stringSchema(),
  split: () => arraySchema(stringSchema()),
  open: always,
  rotate: always,
  secret: () => stringSchema(),
  toBase64: () => stringSchema(),
  toJSON: () => stringSchema(),
  toString: () => stringSchema(),
};

const slotsOf = (accessors: PropertyAccessor[]): AccessorSlot[] => accessors.map((accessor) => ({ accessor }));

/**
 * Turns an AST expression into an evaluation expression, declaring object keys over the imported value at the
 * same place (`base`) so that lookups fall through to imports. Builtin arguments have no base.
 */
export function declare(diags: Diagnostic[], path: string, x: Expr | undefined, base: Value | undefined): EvalExpr {
  if (x === undefined) return missingExpr(path, base);
  const sub = (y: Expr | undefined): EvalExpr => declare(diags, '', y, undefined);
  switch (x.kind) {
    case 'null':
      return newExpr(path, { kind: 'literal', node: x }, nullSchema(), base);
    case 'boolean':
      return newExpr(path, { kind: 'literal', node: x }, booleanSchema(x.value), base);
    case 'number':
      return newExpr(path, { kind: 'literal', node: x }, numberSchema(x.value), base);
    case 'string':
      return newExpr(path, { kind: 'literal', node: x }, stringSchema(x.value), base);
    case 'interpolate': {
      const parts = x.parts.map((p) => ({ text: p.text, ...(p.value ? { slots: slotsOf(p.value.accessors) } : {}) }));
      return newExpr(path, { kind: 'interpolate', node: x, parts }, stringSchema(), base);
    }
    case 'symbol':
      return newExpr(path, { kind: 'symbol', node: x, slots: slotsOf(x.property.accessors) }, always(), base);
    case 'array': {
      const elements = x.elements.map((e, i) => declare(diags, `${path}[${i}]`, e, undefined));
      return newExpr(path, { kind: 'array', node: x, elements }, arraySchema(always()), base);
    }
    case 'object': {
      const properties = new Map<string, EvalExpr>();
      for (const entry of x.entries) {
        if (entry.key === undefined) continue;
        const k = entry.key.value;
        if (properties.has(k)) diags.push(exprError(entry.key, `duplicate key ${JSON.stringify(k)}`));
        else properties.set(k, declare(diags, joinKey(path, k), entry.value, base?.property(entry.key, k)));
      }
      return newExpr(path, { kind: 'object', node: x, properties }, mapSchema(always()), base);
    }
    default: {
      let args: Record<string, EvalExpr | undefined>;
      switch (x.kind) {
        case 'open':
          args = { provider: x.provider && sub(x.provider), inputs: sub(x.inputs) };
          break;
        case 'rotate':
          args = { provider: x.provider && sub(x.provider), inputs: sub(x.inputs), state: sub(x.state) };
          break;
        case 'secret': {
          const inner = sub(x.plaintext ?? x.ciphertext);
          inner.secret = true;
          args = x.plaintext !== undefined ? { plaintext: inner } : { ciphertext: inner };
          break;
        }
        case 'join':
        case 'split':
          args = { delimiter: sub(x.delimiter), operand: sub(x.operand) };
          break;
        case 'validate':
          args = { schema: sub(x.schema), value: sub(x.value) };
          break;
        default:
          args = { value: sub(x.args) };
      }
      const repr = { kind: 'builtin' as const, node: x, args, inputSchema: always(), stateSchema: always() };
      return newExpr(path, repr, BUILTIN_SCHEMAS[x.kind](), base);
    }
  }
}
