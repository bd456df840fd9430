/**
 * JSON Schema validation of a policy's configuration, with the messages Pulumi's validator (gojsonschema) gives:
 * `foo is required`, `foo: Invalid type. Expected: string, given: integer`, `foo: String length must be less than or
 * equal to 3`, `foo: foo must be one of the following: "bar", "baz"` … A pack's schema is a policy's `configSchema`
 * (draft-07 keywords a pack writes: type, enum, const, required, properties, additionalProperties, items,
 * length, bounds, pattern, multipleOf, uniqueItems).
 */

type Schema = Record<string, unknown>;

/** The JSON type gojsonschema names a value by (`integer` for a whole number). */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(want: string, got: string): boolean {
  return want === got || (want === 'number' && got === 'integer');
}

/** Go's `%v`-like JSON of an allowed value, as gojsonschema quotes them. */
function shown(v: unknown): string {
  return JSON.stringify(v);
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One error: the field it is about (`''` for the root) and gojsonschema's description. */
type SchemaError = [field: string, description: string];

/**
 * The errors of `value` against `schema`, each as gojsonschema renders `field: description` (the root's field left
 * out, as Pulumi trims `(root): `), or only the description (`Description()`, as `policy validate-config` prints them).
 */
export function validateSchema(schema: Schema, value: unknown, form: 'field' | 'description' = 'field'): string[] {
  const errors: SchemaError[] = [];
  check(schema, value, '', errors);
  return errors.map(([path, msg]) => (path && form === 'field' ? `${path}: ${msg}` : msg));
}

function check(schema: Schema, value: unknown, path: string, errors: SchemaError[]): void {
  const at = (msg: string) => errors.push([path, msg]);
  const field = path || '(root)';
  const got = typeOf(value);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.length && !types.some((t) => typeMatches(t, got))) {
    at(`Invalid type. Expected: ${types.join(', ')}, given: ${got}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => equal(e, value))) at(`${field} must be one of the following: ${schema.enum.map(shown).join(', ')}`);
  if ('const' in schema && !equal(schema.const, value)) at(`${field} does not match: ${shown(schema.const)}`);
  if (typeof value === 'string') checkString(schema, value, at);
  if (typeof value === 'number') checkNumber(schema, value, at);
  if (Array.isArray(value)) checkArray(schema, value, path, at, errors);
  if (got === 'object') checkObject(schema, value as Record<string, unknown>, path, at, errors);
}

function checkString(schema: Schema, value: string, at: (msg: string) => void): void {
  const length = [...value].length;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) at(`String length must be less than or equal to ${schema.maxLength}`);
  if (typeof schema.minLength === 'number' && length < schema.minLength) at(`String length must be greater than or equal to ${schema.minLength}`);
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) at(`Does not match pattern '${schema.pattern}'`);
}

function checkNumber(schema: Schema, value: number, at: (msg: string) => void): void {
  if (typeof schema.minimum === 'number' && value < schema.minimum) at(`Must be greater than or equal to ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) at(`Must be less than or equal to ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) at(`Must be greater than ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) at(`Must be less than ${schema.exclusiveMaximum}`);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && !Number.isInteger(value / schema.multipleOf)) at(`Must be a multiple of ${schema.multipleOf}`);
}

function checkArray(schema: Schema, value: unknown[], path: string, at: (msg: string) => void, errors: SchemaError[]): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) at(`Array must have at least ${schema.minItems} items`);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) at(`Array must have at most ${schema.maxItems} items`);
  if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) at('array items must be unique');
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) {
    value.forEach((item, i) => check(schema.items as Schema, item, path ? `${path}.${i}` : String(i), errors));
  }
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string, at: (msg: string) => void, errors: SchemaError[]): void {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required ?? []) as string[]) if (!(name in value)) at(`${name} is required`);
  for (const [name, v] of Object.entries(value)) {
    const child = path ? `${path}.${name}` : name;
    if (props[name]) check(props[name], v, child, errors);
    else if (schema.additionalProperties === false) at(`Additional property ${name} is not allowed`);
    else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') check(schema.additionalProperties as Schema, v, child, errors);
  }
}
