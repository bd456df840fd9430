/**
 * The JSON Schema subset ESC types values with (draft 2020-12 keywords ESC supports). `true` accepts anything
 * and `false` nothing; in memory they are `{always: true}` and `{never: true}` so every schema is an object.
 * Provider input and output schemas are written as plain JSON Schema and read with {@link fromJSONSchema}.
 */
export interface Schema {
  never?: boolean;
  always?: boolean;
  $defs?: Record<string, Schema>;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  prefixItems?: Schema[];
  items?: Schema;
  additionalProperties?: Schema;
  properties?: Record<string, Schema>;
  type?: string;
  const?: unknown;
  enum?: unknown[];
  multipleOf?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  dependentRequired?: Record<string, string[]>;
  description?: string;
  secret?: boolean;
  /** Input properties evaluated only when a rotator rotates (ESC's `rotateOnly`). */
  rotateOnly?: string[];
  /** Set by {@link compileSchema}: the resolved `$ref`, the compiled pattern, and whether this subtree is rotate-only. */
  compiled?: { ref?: Schema; pattern?: RegExp; rotateOnly: boolean };
}

/** A JSON Schema as providers write it. */
export type JSONSchema = boolean | { [keyword: string]: unknown };

/** The schema nothing satisfies. */
export const never = (): Schema => ({ never: true });
/** The schema everything satisfies. */
export const always = (): Schema => ({ always: true });
/** `{type: null}`. */
export const nullSchema = (): Schema => ({ type: 'null' });
/** `{type: boolean}`, optionally with a const. */
export const booleanSchema = (value?: boolean): Schema => (value === undefined ? { type: 'boolean' } : { type: 'boolean', const: value });
/** `{type: number}`, optionally with a const. */
export const numberSchema = (value?: number): Schema => (value === undefined ? { type: 'number' } : { type: 'number', const: value });
/** `{type: string}`, optionally with a const. */
export const stringSchema = (value?: string): Schema => (value === undefined ? { type: 'string' } : { type: 'string', const: value });
/** An array of `items`. */
export const arraySchema = (items: Schema): Schema => ({ type: 'array', items });
/** A fixed-length array. */
export const tupleSchema = (prefixItems: Schema[]): Schema => ({ type: 'array', prefixItems, items: never() });
/** An object of exactly these properties, all required. */
export const recordSchema = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).sort(),
});
/** An object of any keys, each value of `values`. */
export const mapSchema = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });
/** Exactly one of the schemas. */
export const oneOfSchema = (oneOf: Schema[]): Schema => ({ oneOf });

/** Reads a provider's JSON Schema. */
export function fromJSONSchema(json: JSONSchema): Schema {
  if (json === true) return always();
  if (json === false) return never();
  const s: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    if (k === 'items' || k === 'additionalProperties') s[k] = fromJSONSchema(v as JSONSchema);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'prefixItems') s[k] = (v as JSONSchema[]).map(fromJSONSchema);
    else if (k === 'properties' || k === '$defs') {
      s[k] = Object.fromEntries(Object.entries(v as Record<string, JSONSchema>).map(([p, ps]) => [p, fromJSONSchema(ps)]));
    } else s[k] = v;
  }
  return s as Schema;
}

/** Resolves `$ref`s against the root's `$defs`, compiles patterns and marks rotate-only properties; idempotent. */
export function compileSchema(root: Schema): void {
  compileNode(root, root);
}

function compileNode(s: Schema | undefined, root: Schema): void {
  if (s === undefined || s.compiled !== undefined) return;
  s.compiled = { rotateOnly: false };
  if (s.$ref !== undefined) {
    const name = /^#\/\$defs\/([^/]+)$/.exec(s.$ref)?.[1];
    if (name === undefined) throw new Error('only fragment references of the form #/$defs/ref are supported');
    const target = root.$defs?.[decodeURIComponent(name)];
    if (target === undefined) throw new Error(`unknown subschema ${s.$ref}`);
    s.compiled.ref = target;
    compileNode(target, root);
  }
  for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.prefixItems ?? []), ...Object.values(s.properties ?? {})]) compileNode(x, root);
  compileNode(s.items, root);
  compileNode(s.additionalProperties, root);
  for (const name of s.rotateOnly ?? []) {
    if (s.properties?.[name] !== undefined) s.properties[name] = markRotateOnly(s.properties[name]);
  }
  if (s.pattern !== undefined) s.compiled.pattern = new RegExp(s.pattern, 'u');
}

function markRotateOnly(s: Schema): Schema {
  if (s.compiled?.rotateOnly) return s;
  const mark = (x: Schema | undefined): Schema | undefined => (x === undefined ? undefined : markRotateOnly(x));
  return {
    ...s,
    compiled: { ...(s.compiled ?? {}), ref: mark(s.compiled?.ref), rotateOnly: true },
    ...(s.anyOf ? { anyOf: s.anyOf.map(markRotateOnly) } : {}),
    ...(s.oneOf ? { oneOf: s.oneOf.map(markRotateOnly) } : {}),
    ...(s.prefixItems ? { prefixItems: s.prefixItems.map(markRotateOnly) } : {}),
    ...(s.items ? { items: mark(s.items) } : {}),
    ...(s.additionalProperties ? { additionalProperties: mark(s.additionalProperties) } : {}),
    ...(s.properties ? { properties: Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, markRotateOnly(p)])) } : {}),
  };
}

/** True for a schema inside a rotate-only input. */
export const isRotateOnly = (s: Schema): boolean => s.compiled?.rotateOnly === true;

/** The schema of element `index` of values of this schema. */
export function itemSchema(s: Schema, index: number): Schema {
  const candidates = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((x) => itemSchema(x, index));
  candidates.push(s.type !== 'array' ? never() : index < (s.prefixItems?.length ?? 0) ? s.prefixItems![index] : (s.items ?? never()));
  return union(candidates);
}

/** The schema of property `name` of values of this schema. */
export function propertySchema(s: Schema, name: string): Schema {
  const candidates = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((x) => propertySchema(x, name));
  candidates.push(s.type !== 'object' ? never() : (s.properties?.[name] ?? s.additionalProperties ?? never()));
  return union(candidates);
}

function union(candidates: Schema[]): Schema {
  const live = candidates.filter((s) => !s.never);
  if (live.length === 0) return never();
  if (live.length === 1) return live[0];
  return { oneOf: live, compiled: { rotateOnly: live.every(isRotateOnly) } };
}

/** The schema of an object value merged over an imported one (ESC's mergedSchema). */
export function mergedSchema(base: Schema | undefined, top: Schema): Schema {
  if (base === undefined || top.type !== 'object' || base.type !== 'object') return top;
  const properties: Record<string, Schema> = { ...(base.properties ?? {}) };
  for (const [k, t] of Object.entries(top.properties ?? {})) {
    properties[k] = properties[k] !== undefined ? mergedSchema(properties[k], t) : t;
  }
  let additional = top.additionalProperties;
  if (base.additionalProperties !== undefined) additional = additional === undefined ? base.additionalProperties : always();
  const merged = recordSchema(properties);
  if (additional !== undefined) merged.additionalProperties = additional;
  return merged;
}

/**
 * The schema as JSON Schema, as ESC serializes one: `true`/`false` for always/never, `type` always present
 * (`""` when unset), empty lists and maps left out, no compiled state.
 */
export function toJSONSchema(s: Schema): JSONSchema {
  if (s.never) return false;
  if (s.always) return true;
  const out: Record<string, unknown> = { type: s.type ?? '' };
  for (const [k, v] of Object.entries(s)) {
    if (k === 'compiled' || k === 'type' || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 && k !== 'const' && k !== 'default') continue;
    if (k === 'items' || k === 'additionalProperties') out[k] = toJSONSchema(v as Schema);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'prefixItems') out[k] = (v as Schema[]).map(toJSONSchema);
    else if (k === 'properties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, ps]) => [p, toJSONSchema(ps)]));
    } else out[k] = v;
  }
  return out;
}
