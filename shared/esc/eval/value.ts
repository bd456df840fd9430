import type { Expr } from '../ast/expr.js';
import type { PropertyAccessor } from '../ast/property.js';
import { errorAt, type Diagnostic, type Range } from '../diagnostics.js';
import {
  always,
  booleanSchema,
  mergedSchema,
  nullSchema,
  numberSchema,
  propertySchema,
  recordSchema,
  stringSchema,
  tupleSchema,
  type Schema,
} from '../schema/schema.js';
import { formatScalar, goQuote, type EscValue } from '../value.js';

/** One step of a `${…}` path and the value it reached when evaluated (where that step was defined). */
export interface AccessorSlot {
  accessor: PropertyAccessor;
  value?: Value;
}

/** A piece of an interpolated string: its text, then the path it interpolates, if any. */
export interface InterpolationSlots {
  text: string;
  slots?: AccessorSlot[];
}

/** How an expression is represented for evaluation (ESC's exprRepr). */
export type ExprRepr =
  | { kind: 'missing'; node: Expr }
  | { kind: 'literal'; node: Expr }
  | { kind: 'interpolate'; node: Expr; parts: InterpolationSlots[] }
  | { kind: 'symbol'; node: Expr; slots: AccessorSlot[] }
  | { kind: 'access'; node: Expr; receiver: Value; accessor: PropertyAccessor }
  | { kind: 'array'; node: Expr; elements: EvalExpr[] }
  | { kind: 'object'; node: Expr; properties: Map<string, EvalExpr> }
  | { kind: 'builtin'; node: Expr; args: Record<string, EvalExpr | undefined>; inputSchema?: Schema; stateSchema?: Schema };

/** An expression under evaluation: its path (for cycle messages), the imported value it overrides, its memoized value. */
export interface EvalExpr {
  path: string;
  repr: ExprRepr;
  base?: Value;
  schema: Schema;
  state: 'declared' | 'evaluating' | 'done';
  secret: boolean;
  value?: Value;
}

/** A new expression in the declared state. */
export function newExpr(path: string, repr: ExprRepr, schema: Schema, base?: Value): EvalExpr {
  return { path, repr, schema, base, state: 'declared', secret: false };
}

/** The expression of a value that was never written (an argument left out). */
export function missingExpr(path: string, base?: Value): EvalExpr {
  return newExpr(path, { kind: 'missing', node: { kind: 'null' } }, always(), base);
}

/** The range an expression was defined at, `environment` naming made-up ones. */
export function defRange(x: EvalExpr, environment: string): Range {
  const range = x.repr.node.syntax?.range;
  return range ?? { environment, begin: { line: 0, column: 0, byte: 0 }, end: { line: 0, column: 0, byte: 0 } };
}

/** The in-memory shape of a value (ESC's repr). */
export type Repr = null | boolean | number | string | Value[] | Map<string, Value>;

const isObjectRepr = (r: Repr): r is Map<string, Value> => r instanceof Map;

/**
 * A value during evaluation: its defining expression, the imported value beneath it (objects merge key by key
 * with it; anything else replaces it), its schema, and whether it is unknown, secret, rotate-only or final.
 */
export class Value {
  base?: Value;
  unknown = false;
  rotateOnly = false;
  secret = false;
  final = false;
  repr: Repr = null;
  private mergedKeys?: string[];
  private exported?: EscValue;
  private exporting = false;

  constructor(
    public def: EvalExpr,
    public schema: Schema,
  ) {}

  containsUnknowns(): boolean {
    if (this.unknown) return true;
    if (Array.isArray(this.repr)) return this.repr.some((v) => v.containsUnknowns());
    if (isObjectRepr(this.repr)) return this.keys().some((k) => this.property(this.def.repr.node, k)?.containsUnknowns());
    return false;
  }

  /** Unknowns that evaluation will observe: rotate-only unknowns are invisible unless rotating. */
  containsObservableUnknowns(rotating: boolean): boolean {
    if (this.unknown) return !(this.rotateOnly && !rotating);
    if (Array.isArray(this.repr)) return this.repr.some((v) => v.containsObservableUnknowns(rotating));
    if (isObjectRepr(this.repr)) return this.keys().some((k) => this.property(this.def.repr.node, k)?.containsObservableUnknowns(rotating));
    return false;
  }

  containsSecrets(): boolean {
    if (this.secret) return true;
    if (Array.isArray(this.repr)) return this.repr.some((v) => v.containsSecrets());
    if (isObjectRepr(this.repr)) return this.keys().some((k) => this.property(this.def.repr.node, k)?.containsSecrets());
    return false;
  }

  isObject(): boolean {
    if (this.unknown) return this.schema.always === true || this.schema.type === 'object';
    return isObjectRepr(this.repr);
  }

  /** The same value, or the same unknown property of the same unknown receiver. */
  is(other: Value): boolean {
    if (this === other) return true;
    if (!this.unknown || !other.unknown) return false;
    const a = this.def.repr;
    const b = other.def.repr;
    if (a.kind !== 'access' || b.kind !== 'access' || a.accessor.kind !== 'name' || b.accessor.kind !== 'name') return false;
    return a.receiver.is(b.receiver) && a.accessor.name === b.accessor.name;
  }

  /** Takes on the unknown-ness and secrecy of the operands a builtin computed this value from. */
  combine(...others: Value[]): void {
    for (const o of others) {
      this.unknown = this.containsUnknowns() || o.containsUnknowns();
      this.secret = this.containsSecrets() || o.containsSecrets();
    }
  }

  /** The object's keys merged with its base's, sorted. */
  keys(): string[] {
    if (this.mergedKeys === undefined) {
      if (!isObjectRepr(this.repr)) return [];
      const keys = new Set([...(this.base?.keys() ?? []), ...this.repr.keys()]);
      this.mergedKeys = [...keys].sort(compareStrings);
    }
    return this.mergedKeys;
  }

  /** Property `key`, looked up through the bases; an unknown object yields an unknown property of it. */
  property(node: Expr, key: string): Value | undefined {
    if (isObjectRepr(this.repr)) return this.repr.get(key) ?? this.base?.property(node, key);
    if (this.unknown) {
      const schema = propertySchema(this.schema, key);
      const base = this.base?.property(node, key);
      const def: EvalExpr = { ...newExpr('', { kind: 'access', node, receiver: this, accessor: { kind: 'name', name: key } }, schema, base), state: 'done' };
      const v = new Value(def, schema);
      v.base = base;
      v.unknown = true;
      return v;
    }
    return undefined;
  }

  /** Lays this value over an imported one: objects merge key by key, the schema merges with the base's. */
  merge(base: Value | undefined): void {
    if (base === undefined || this.is(base)) return;
    if (this.base !== undefined) this.base.merge(base);
    else this.base = base;
    if (isObjectRepr(this.repr)) {
      for (const [k, p] of this.repr) p.merge(this.base.property(p.def.repr.node, k));
    }
    this.schema = mergedSchema(this.base.schema, this.schema);
  }

  /** The value as interpolation prints it, and whether that string is unknown or secret. */
  toStringParts(): { text: string; unknown: boolean; secret: boolean } {
    if (this.unknown) return { text: '[unknown]', unknown: true, secret: this.secret };
    let unknown = false;
    let secret = this.secret;
    let text = '';
    const repr = this.repr;
    if (Array.isArray(repr)) {
      text = repr
        .map((v) => {
          const part = v.toStringParts();
          unknown ||= part.unknown;
          secret ||= part.secret;
          return goQuote(part.text);
        })
        .join(',');
    } else if (isObjectRepr(repr)) {
      text = [...repr.keys()]
        .sort(compareStrings)
        .map((k) => {
          const part = repr.get(k)!.toStringParts();
          unknown ||= part.unknown;
          secret ||= part.secret;
          return `${goQuote(k)}=${goQuote(part.text)}`;
        })
        .join(',');
    } else if (repr !== null) {
      text = formatScalar(repr);
    }
    return { text, unknown, secret };
  }

  /** The value in ESC's checked shape; the bases export as `<import>` traces. */
  export(environment: string): { value: EscValue; diagnostics: Diagnostic[] } {
    if (this.exported !== undefined) return { value: this.exported, diagnostics: [] };
    if (this.exporting) {
      return { value: { value: null, unknown: true }, diagnostics: [errorAt(this.def.repr.node.syntax?.range, 'internal error: cyclic export', this.def.repr.node.syntax?.path ?? '')] };
    }
    this.exporting = true;
    const diagnostics: Diagnostic[] = [];
    const take = (v: Value): EscValue => {
      const out = v.export(environment);
      diagnostics.push(...out.diagnostics);
      return out.value;
    };
    let value: EscValue['value'];
    if (Array.isArray(this.repr)) value = this.repr.map(take);
    else if (isObjectRepr(this.repr)) value = Object.fromEntries(this.keys().map((k) => [k, take(this.property(this.def.repr.node, k)!)]));
    else value = this.repr;
    let base: EscValue | undefined;
    if (this.base !== undefined) {
      const out = this.base.export('<import>');
      diagnostics.push(...out.diagnostics);
      base = out.value;
    }
    const exported: EscValue = { value, trace: { def: defRange(this.def, environment), ...(base ? { base } : {}) } };
    if (this.secret) exported.secret = true;
    if (this.unknown) exported.unknown = true;
    this.exported = exported;
    this.exporting = false;
    return { value: exported, diagnostics };
  }
}

/** Orders strings by UTF-16 code units, as ESC's byte-wise sort does for the keys it meets. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Turns an exported value (a provider's output, a decoded JSON document) back into an evaluation value defined by `x`. */
export function unexport(v: EscValue, x: EvalExpr): Value {
  const out = new Value(x, always());
  out.secret = v.secret === true || x.secret;
  out.unknown = v.unknown === true;
  const pv = v.value;
  if (pv === null || pv === undefined) {
    out.schema = nullSchema();
  } else if (typeof pv === 'boolean') {
    out.repr = pv;
    out.schema = booleanSchema(pv);
  } else if (typeof pv === 'number') {
    out.repr = pv;
    out.schema = numberSchema(pv);
  } else if (typeof pv === 'string') {
    out.repr = pv;
    out.schema = stringSchema(pv);
  } else if (Array.isArray(pv)) {
    const items = pv.map((e) => unexport(e, x));
    out.repr = items;
    out.schema = tupleSchema(items.map((e) => e.schema));
  } else {
    const props = new Map(Object.entries(pv).map(([k, e]) => [k, unexport(e, x)] as const));
    out.repr = props;
    out.schema = recordSchema(Object.fromEntries([...props].map(([k, e]) => [k, e.schema])));
  }
  return out;
}

/** A deep copy of a value graph that keeps shared values shared (ESC's copier). */
export function copyValue(v: Value | undefined, memo = new Map<Value, Value>()): Value | undefined {
  if (v === undefined) return undefined;
  const known = memo.get(v);
  if (known !== undefined) return known;
  const copy = new Value(v.def, v.schema);
  memo.set(v, copy);
  if (Array.isArray(v.repr)) copy.repr = v.repr.map((e) => copyValue(e, memo)!);
  else if (isObjectRepr(v.repr)) copy.repr = new Map([...v.repr].map(([k, e]) => [k, copyValue(e, memo)!] as const));
  else copy.repr = v.repr;
  copy.base = copyValue(v.base, memo);
  copy.unknown = v.unknown;
  copy.secret = v.secret;
  copy.final = v.final;
  return copy;
}
