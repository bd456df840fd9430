import { joinKey } from '../ast/path.js';
import { exprError } from '../ast/expr.js';
import type { Diagnostic } from '../diagnostics.js';
import { compileSchema, type Schema } from '../schema/schema.js';
import { goMarshalJSON, type JsonValue } from '../value.js';
import { Value, type EvalExpr } from './value.js';

/** Where a problem is reported: the expression, and a path prefix when the problem is inside a computed value. */
interface Loc {
  x: EvalExpr;
  path: string;
  prefix: boolean;
}

function indexLoc(loc: Loc, i: number): Loc {
  const repr = loc.x.repr;
  if (repr.kind === 'array' && i < repr.elements.length) return { x: repr.elements[i], path: `[${i}]`, prefix: false };
  return { x: loc.x, path: `${loc.path}[${i}]`, prefix: true };
}

function propertyLoc(loc: Loc, k: string): Loc {
  const repr = loc.x.repr;
  const x = repr.kind === 'object' ? repr.properties.get(k) : undefined;
  if (x !== undefined) return { x, path: joinKey('', k), prefix: false };
  return { x: loc.x, path: joinKey(loc.path, k), prefix: true };
}

const isAny = (s: Schema | undefined): boolean => s === undefined || s.always === true;

/**
 * Checks values against schemas with ESC's messages: known values by their contents, unknown values by
 * their schema (an unknown fails only when its schema cannot meet the accepted one).
 */
export class Validator {
  readonly diagnostics: Diagnostic[] = [];

  private error(loc: Loc, message: string): false {
    this.diagnostics.push(exprError(loc.x.repr.node, loc.prefix ? `${loc.path}: ${message}` : message));
    return false;
  }

  private typeError(loc: Loc, expected: string, got: string): false {
    return this.error(loc, `expected ${expected}, got ${got}`);
  }

  private checkType(actual: string, accept: Schema, loc: Loc): boolean {
    if (accept.type !== undefined && actual !== accept.type) return this.typeError(loc, accept.type, actual);
    return true;
  }

  /** Validates a value against `accept`; problems are placed on the value's defining expression. */
  validateValue(v: Value, accept: Schema | undefined): boolean {
    return this.validateElement(v, accept, { x: v.def, path: '', prefix: false });
  }

  private validateElement(v: Value, accept: Schema | undefined, loc: Loc): boolean {
    if (accept !== undefined) {
      try {
        compileSchema(accept);
      } catch (err) {
        return this.error(loc, `internal error: invalid schema: ${(err as Error).message}`);
      }
    }
    if (isAny(accept)) return true;
    const a = accept!;
    if (a.never) return false;
    if (v.unknown) return this.validateSchemaType(v.schema, a, loc);
    const refOk = a.compiled?.ref === undefined || this.validateElement(v, a.compiled.ref, loc);
    const anyOk = this.validateAlternatives(a.anyOf, (s, vv) => vv.validateElement(v, s, loc), loc);
    const oneOk = this.validateAlternatives(a.oneOf, (s, vv) => vv.validateElement(v, s, loc), loc, true);
    const constOk = a.const === undefined || equalsConst(v, a.const) || this.error(loc, `expected ${goMarshalJSON(a.const as JsonValue)}`);
    const enumOk = this.validateEnum(v, a, loc);
    const typeOk = this.validateType(v, a, loc);
    return refOk && anyOk && oneOk && constOk && enumOk && typeOk;
  }

  /**
   * anyOf (one alternative must hold) or, `exclusive`, oneOf (exactly one); when none holds, every alternative's
   * problems are reported with ESC's summary line.
   */
  private validateAlternatives(alternatives: Schema[] | undefined, check: (s: Schema, v: Validator) => boolean, loc: Loc, exclusive = false): boolean {
    if (alternatives === undefined || alternatives.length === 0) return true;
    let matched = false;
    const all: Diagnostic[] = [];
    for (const s of alternatives) {
      const inner = new Validator();
      if (check(s, inner)) {
        if (exclusive && matched) return this.error(loc, 'exactly one subschema may match');
        matched = true;
      }
      all.push(...inner.diagnostics);
    }
    if (matched) return true;
    this.diagnostics.push(...all);
    return this.error(loc, exclusive ? 'exactly one subschema must match' : 'at least one subschema must match');
  }

  private validateEnum(v: Value, accept: Schema, loc: Loc): boolean {
    if (accept.enum === undefined || accept.enum.length === 0) return true;
    if (accept.enum.some((c) => equalsConst(v, c))) return true;
    if (accept.enum.length === 1) return this.error(loc, `expected ${goMarshalJSON(accept.enum[0] as JsonValue)}`);
    return this.error(loc, `expected one of ${goMarshalJSON(accept.enum as JsonValue)}`);
  }

  private validateType(v: Value, accept: Schema, loc: Loc): boolean {
    const repr = v.repr;
    if (repr === null) return this.checkType('null', accept, loc);
    if (typeof repr === 'boolean') return this.checkType('boolean', accept, loc);
    if (typeof repr === 'number') return this.checkType('number', accept, loc) && this.validateNumber(repr, accept, loc);
    if (typeof repr === 'string') return this.checkType('string', accept, loc) && this.validateString(repr, accept, loc);
    if (Array.isArray(repr)) return this.checkType('array', accept, loc) && this.validateArray(repr, accept, loc);
    return this.checkType('object', accept, loc) && this.validateObject(v, accept, loc);
  }

  private validateNumber(n: number, accept: Schema, loc: Loc): boolean {
    let ok = true;
    if (accept.multipleOf !== undefined && !Number.isInteger(n / accept.multipleOf)) ok = this.error(loc, `expected a multiple of ${accept.multipleOf}`);
    if (accept.minimum !== undefined && n < accept.minimum) ok = this.error(loc, `expected a number greater than or equal to ${accept.minimum}`);
    if (accept.exclusiveMinimum !== undefined && n <= accept.exclusiveMinimum) ok = this.error(loc, `expected a number greater than ${accept.exclusiveMinimum}`);
    // ESC's message has no space before the bound; kept so diagnostics match ESC's.
    if (accept.maximum !== undefined && n > accept.maximum) ok = this.error(loc, `expected a number less than or equal to${accept.maximum}`);
    if (accept.exclusiveMaximum !== undefined && n >= accept.exclusiveMaximum) ok = this.error(loc, `expected a number less than ${accept.exclusiveMaximum}`);
    return ok;
  }

  private validateString(s: string, accept: Schema, loc: Loc): boolean {
    let ok = true;
    const length = Buffer.byteLength(s);
    if (accept.minLength !== undefined && length < accept.minLength) ok = this.error(loc, `expected a string of at least length ${accept.minLength}`);
    if (accept.maxLength !== undefined && length > accept.maxLength) ok = this.error(loc, `expected a string of at most length ${accept.maxLength}`);
    const pattern = accept.compiled?.pattern;
    if (pattern !== undefined && !pattern.test(s)) ok = this.error(loc, `string must match the pattern ${JSON.stringify(accept.pattern)}`);
    return ok;
  }

  private validateArray(items: Value[], accept: Schema, loc: Loc): boolean {
    let ok = true;
    if (accept.minItems !== undefined && items.length < accept.minItems) ok = this.error(loc, `expected an array with at least ${accept.minItems} items`);
    if (accept.maxItems !== undefined && items.length > accept.maxItems) ok = this.error(loc, `expected an array with at most ${accept.maxItems} items`);
    items.forEach((v, i) => {
      const s = i < (accept.prefixItems?.length ?? 0) ? accept.prefixItems![i] : accept.items;
      if (!this.validateValue(v, s)) ok = false;
    });
    return ok;
  }

  private validateObject(v: Value, accept: Schema, loc: Loc): boolean {
    const keys = v.keys();
    let ok = true;
    if (accept.minProperties !== undefined && keys.length < accept.minProperties) ok = this.error(loc, `expected an object with at least ${accept.minProperties} properties`);
    if (accept.maxProperties !== undefined && keys.length > accept.maxProperties) ok = this.error(loc, `expected an object with at most ${accept.maxProperties} properties`);
    for (const k of keys) {
      const s = accept.properties?.[k] ?? accept.additionalProperties;
      if (!this.validateValue(v.property(v.def.repr.node, k)!, s)) ok = false;
    }
    const present = new Set(keys);
    const missing = (accept.required ?? []).filter((k) => !present.has(k));
    for (const [k, required] of Object.entries(accept.dependentRequired ?? {})) {
      if (present.has(k)) missing.push(...required.filter((r) => !present.has(r)));
    }
    if (missing.length > 0) ok = this.error(loc, `missing required properties: ${missing.join(', ')}`);
    return ok;
  }

  /** Whether a value of schema `x` can satisfy `accept` (ESC's validateSchemaType, for unknown values). */
  private validateSchemaType(x: Schema | undefined, accept: Schema | undefined, loc: Loc): boolean {
    if (isAny(accept)) return true;
    const a = accept!;
    if (a.never) return false;
    if (isAny(x)) return true;
    const s = x!;
    if (s.never) return false;
    const refOk = a.compiled?.ref === undefined || this.validateSchemaType(s, a.compiled.ref, loc);
    const xRefOk = s.compiled?.ref === undefined || this.validateSchemaType(s.compiled.ref, a, loc);
    const xAnyOk = this.validateAlternatives(s.anyOf, (xs, vv) => vv.validateSchemaType(xs, a, loc), loc);
    const xOneOk = this.validateAlternatives(s.oneOf, (xs, vv) => vv.validateSchemaType(xs, a, loc), loc);
    const typeOk = s.type === undefined || this.checkType(s.type, a, loc);
    const anyOk = this.validateAlternatives(a.anyOf, (as, vv) => vv.validateSchemaType(s, as, loc), loc);
    const oneOk = this.validateAlternatives(a.oneOf, (as, vv) => vv.validateSchemaType(s, as, loc), loc);
    let complexOk = true;
    if (s.type === 'array') complexOk = this.validateSchemaArray(s, a, loc);
    else if (s.type === 'object') complexOk = this.validateSchemaObject(s, a, loc);
    return refOk && xRefOk && xAnyOk && xOneOk && typeOk && anyOk && oneOk && complexOk;
  }

  private validateSchemaArray(x: Schema, accept: Schema, loc: Loc): boolean {
    let ok = true;
    const xPrefix = x.prefixItems ?? [];
    const aPrefix = accept.prefixItems ?? [];
    const shared = Math.min(xPrefix.length, aPrefix.length);
    for (let i = 0; i < shared; i++) ok = this.validateSchemaType(xPrefix[i], aPrefix[i], indexLoc(loc, i)) && ok;
    for (let i = shared; i < xPrefix.length; i++) ok = this.validateSchemaType(xPrefix[i], accept.items, indexLoc(loc, i)) && ok;
    if (xPrefix.length <= shared) {
      for (let i = shared; i < aPrefix.length; i++) ok = this.validateSchemaType(x.items, aPrefix[i], indexLoc(loc, i)) && ok;
    }
    if (x.items !== undefined && !x.items.never) ok = this.validateSchemaType(x.items, accept.items, loc) && ok;
    return ok;
  }

  private validateSchemaObject(x: Schema, accept: Schema, loc: Loc): boolean {
    let ok = true;
    for (const [name, px] of Object.entries(x.properties ?? {})) {
      const pa = accept.properties?.[name] ?? accept.additionalProperties;
      ok = this.validateSchemaType(px, pa, propertyLoc(loc, name)) && ok;
    }
    if (x.additionalProperties === undefined) {
      const xRequired = new Set(x.required ?? []);
      const checkRequired = (names: string[]): boolean => {
        let all = true;
        for (const name of names) if (!xRequired.has(name)) all = this.error(propertyLoc(loc, name), 'missing required property');
        return all;
      };
      ok = checkRequired(accept.required ?? []) && ok;
      for (const [name, required] of Object.entries(accept.dependentRequired ?? {})) {
        if (xRequired.has(name)) ok = checkRequired(required) && ok;
      }
    } else if (!x.additionalProperties.never) {
      ok = this.validateSchemaType(x.additionalProperties, accept.additionalProperties, loc) && ok;
    }
    return ok;
  }
}

/** Deep equality of a value with a schema constant. */
function equalsConst(v: Value, c: unknown): boolean {
  if (c === null) return v.repr === null;
  if (typeof c !== 'object') return v.repr === c;
  if (Array.isArray(c)) {
    const a = v.repr;
    return Array.isArray(a) && a.length === c.length && c.every((e, i) => equalsConst(a[i], e));
  }
  const m = v.repr;
  if (!(m instanceof Map)) return false;
  const entries = Object.entries(c as Record<string, unknown>);
  return m.size === entries.length && entries.every(([k, e]) => m.has(k) && equalsConst(m.get(k)!, e));
}
