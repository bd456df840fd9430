import type { Expr } from '../ast/expr.js';
import type { PropertyAccessor } from '../ast/property.js';
import { errorAt } from '../diagnostics.js';
import { always, itemSchema, propertySchema, recordSchema, type Schema } from '../schema/schema.js';
import { nearestName } from '../spell.js';
import type { AccessHost } from './types.js';
import { copyValue, newExpr, Value, type AccessorSlot, type EvalExpr } from './value.js';

/**
 * Resolves a `${…}` property path of expression `x`. Each accessor's slot records the value it reached, so the
 * exported expression can say where every step of the path was defined.
 */
export async function evaluatePropertyAccess(host: AccessHost, x: EvalExpr, slots: AccessorSlot[], accept: Schema): Promise<Value> {
  const v = copyValue(await new PathWalk(host, x).fromExpr(slots, accept))!;
  v.def = x;
  return v;
}

class PathWalk {
  private readonly node: Expr;

  constructor(
    private readonly host: AccessHost,
    private readonly x: EvalExpr,
  ) {
    this.node = x.repr.node;
  }

  private error(accessor: PropertyAccessor, summary: string): void {
    this.host.run.diagnostics.push(errorAt(accessor.range ?? this.node.syntax?.range, summary, this.node.syntax?.path ?? ''));
  }

  /** Follows the path through expressions (so references need no evaluation order), then through values. */
  async fromExpr(slots: AccessorSlot[], accept: Schema): Promise<Value> {
    const first = this.objectKey(slots[0].accessor, false);
    if (first === 'imports' || first === 'context') {
      const receiver = first === 'imports' ? this.host.myImports : this.host.myContext;
      slots[0].value = receiver;
      return this.fromValue(receiver, slots.slice(1));
    }
    if (first === 'environments') return this.fromEnvironmentReference(slots);

    let receiver = this.host.root;
    let rest = slots;
    while (rest.length > 0) {
      const slot = rest[0];
      const repr = receiver.repr;
      if (repr.kind === 'array') {
        const index = this.arrayIndex(slot.accessor, repr.elements.length);
        if (index === undefined) return this.invalid(rest);
        receiver = repr.elements[index];
      } else if (repr.kind === 'object') {
        const key = this.objectKey(slot.accessor, true);
        if (key === undefined) return this.invalid(rest);
        const prop = repr.properties.get(key);
        if (prop === undefined) {
          if (receiver.base?.isObject()) return this.fromValue(receiver.base, rest);
          this.error(slot.accessor, `unknown property ${JSON.stringify(key)}${didYouMean(nearestName(key, [...repr.properties.keys()]))}`);
          return this.invalid(rest);
        }
        receiver = prop;
      } else if (repr.kind === 'builtin' && repr.node.kind === 'secret' && repr.args.plaintext !== undefined) {
        receiver = repr.args.plaintext;
        continue;
      } else {
        return this.fromValue(await this.host.evaluateExpr(receiver, accept), rest);
      }
      const reached = new Value(receiver, receiver.schema);
      reached.base = receiver.base;
      slot.value = reached;
      rest = rest.slice(1);
    }
    return this.host.evaluateExpr(receiver, always());
  }

  private async fromEnvironmentReference(slots: AccessorSlot[]): Promise<Value> {
    if (slots.length < 3) return this.invalid(slots);
    const project = this.objectKey(slots[1].accessor, true);
    const envName = this.objectKey(slots[2].accessor, true);
    if (project === undefined || envName === undefined) return this.invalid(slots);
    let imported = await this.host.evaluateImport(this.node, `${project}/${envName}`);
    if (imported === undefined) {
      imported = new Value(newExpr('', { kind: 'missing', node: { kind: 'null' } }, always()), always());
      imported.unknown = true;
    }
    const wrap = (key: string, inner: Value): Value => {
      const v = new Value(this.x, recordSchema({ [key]: inner.schema }));
      v.repr = new Map([[key, inner]]);
      return v;
    };
    const reference = wrap('environments', wrap(project, wrap(envName, imported)));
    reference.rotateOnly = true;
    return this.fromValue(reference, slots);
  }

  private fromValue(receiver: Value, slots: AccessorSlot[]): Value {
    let current = receiver;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      if (current.unknown) return this.fromUnknown(current.schema, slots.slice(i));
      const repr = current.repr;
      if (Array.isArray(repr)) {
        const index = this.arrayIndex(slot.accessor, repr.length);
        if (index === undefined) return this.invalid(slots.slice(i));
        current = repr[index];
      } else if (repr instanceof Map) {
        const key = this.objectKey(slot.accessor, true);
        if (key === undefined) return this.invalid(slots.slice(i));
        const prop = repr.get(key);
        if (prop === undefined) {
          if (current.base?.isObject()) return this.fromValue(current.base, slots.slice(i));
          this.error(slot.accessor, `unknown property ${JSON.stringify(key)}${didYouMean(nearestName(key, [...repr.keys()]))}`);
          return this.invalid(slots.slice(i));
        }
        current = prop;
      } else {
        this.error(slot.accessor, 'receiver must be an array or an object');
        return this.invalid(slots.slice(i));
      }
      slot.value = current;
    }
    return current;
  }

  private fromUnknown(schema: Schema, slots: AccessorSlot[]): Value {
    let receiver = schema;
    let reached: Value | undefined;
    for (const [i, slot] of slots.entries()) {
      if (!receiver.always) {
        if (receiver.type === 'array') {
          const length = receiver.items?.never ? (receiver.prefixItems?.length ?? 0) : -1;
          const index = this.arrayIndex(slot.accessor, length);
          if (index === undefined) return this.invalid(slots.slice(i));
          receiver = itemSchema(receiver, index);
        } else if (receiver.type === 'object') {
          const key = this.objectKey(slot.accessor, true);
          if (key === undefined) return this.invalid(slots.slice(i));
          receiver = propertySchema(receiver, key);
        } else {
          this.error(slot.accessor, 'receiver must be an array or an object');
          return this.invalid(slots.slice(i));
        }
      }
      reached = this.unknownAt(receiver);
      slot.value = reached;
    }
    return reached!;
  }

  /** Every remaining step of a path that failed reaches an unknown value defined by the reference itself. */
  private invalid(slots: AccessorSlot[]): Value {
    for (const slot of slots) slot.value = this.unknownAt(always());
    return slots[slots.length - 1].value!;
  }

  private unknownAt(schema: Schema): Value {
    const v = new Value({ ...newExpr('', { kind: 'literal', node: this.node }, schema), state: 'done' }, schema);
    v.unknown = true;
    return v;
  }

  private arrayIndex(accessor: PropertyAccessor, length: number): number | undefined {
    if (accessor.kind !== 'subscript' || typeof accessor.index !== 'number') {
      this.error(accessor, 'cannot access an array element using a property name');
      return undefined;
    }
    if (accessor.index < 0) {
      this.error(accessor, 'array indices must not be negative');
      return undefined;
    }
    if (length >= 0 && accessor.index >= length) {
      this.error(accessor, `array index ${accessor.index} out-of-bounds for array of length ${length}`);
      return undefined;
    }
    return accessor.index;
  }

  private objectKey(accessor: PropertyAccessor, must: boolean): string | undefined {
    if (accessor.kind === 'name') return accessor.name;
    if (typeof accessor.index === 'string') return accessor.index;
    if (must) this.error(accessor, 'cannot access an object property using an integer index');
    return undefined;
  }
}

function didYouMean(name: string): string {
  return name === '' ? '' : `; did you mean ${JSON.stringify(name)}?`;
}
