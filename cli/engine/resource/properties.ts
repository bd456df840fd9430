/**
 * Property values in their wire form: what `Struct.toJavaScript()` yields, with Pulumi's signature objects
 * (secrets, resource references, output values, assets) and the unknown sentinel left in place. The engine works
 * on this form directly so nothing is converted twice.
 */
import { structproto, type Struct } from '../rpc/proto.js';

/** A JSON-like property value. */
export type PropertyValue = null | boolean | number | string | PropertyValue[] | { [key: string]: PropertyValue };
/** A property bag (resource inputs or outputs). */
export type PropertyMap = { [key: string]: PropertyValue };

/** The string the SDK and engine use for a value not known until apply time. */
export const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
/** Key marking a signature object. */
export const SIG_KEY = '4dabf18193072939515e22adb298388d';
/** Signature of a secret. */
export const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';
/** Signature of a resource reference. */
export const RESOURCE_REF_SIG = '5cf8f73096256a8f31e491e813e4eb8e';
/** Signature of an output value. */
export const OUTPUT_VALUE_SIG = 'd0e6a833031e9bbcd3f4e8bde6ca49a4';

type PropertyObject = { [key: string]: PropertyValue };

function isObject(v: PropertyValue | undefined): v is PropertyObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for `{sig: secret, value}`. */
export function isSecret(v: PropertyValue | undefined): boolean {
  return isObject(v) && v[SIG_KEY] === SECRET_SIG;
}

/** Wraps a value as a secret (idempotent). */
export function makeSecret(v: PropertyValue): PropertyValue {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

/** True if the value is an output value signature object. */
function isOutputValue(v: PropertyValue | undefined): boolean {
  return isObject(v) && v[SIG_KEY] === OUTPUT_VALUE_SIG;
}

/** Decodes a Struct into a property map; a missing struct is an empty map. */
export function fromStruct(s: Struct | undefined): PropertyMap {
  return s ? (s.toJavaScript() as PropertyMap) : {};
}

/** Encodes a property map as a Struct; `undefined` members are dropped (Struct rejects them). */
export function toStruct(m: PropertyMap | undefined): Struct {
  return structproto.Struct.fromJavaScript(dropUndefined(m ?? {}) as Parameters<typeof structproto.Struct.fromJavaScript>[0]);
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : dropUndefined(x)));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = dropUndefined(x);
    return out;
  }
  return v;
}

/** True when the value is or contains the unknown sentinel (or an unknown output value). */
export function containsUnknowns(v: PropertyValue | undefined): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknowns);
  if (isObject(v)) {
    if (isOutputValue(v) && !('value' in v)) return true;
    for (const k in v) if (containsUnknowns(v[k])) return true;
  }
  return false;
}

/** True when the value is or contains a secret. */
export function containsSecrets(v: PropertyValue | undefined): boolean {
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isObject(v)) {
    if (isSecret(v)) return true;
    if (isOutputValue(v) && (v as PropertyObject).secret === true) return true;
    for (const k in v) if (containsSecrets(v[k])) return true;
  }
  return false;
}

/** Removes every secret wrapper, keeping the plain values (for providers that do not accept secrets). */
export function stripSecrets<T extends PropertyValue>(v: T): T {
  if (Array.isArray(v)) return v.map(stripSecrets) as T;
  if (isObject(v)) {
    if (isSecret(v)) return stripSecrets((v as PropertyObject).value ?? null) as T;
    const out: PropertyObject = {};
    for (const k in v) out[k] = stripSecrets(v[k]);
    return out as T;
  }
  return v;
}

/**
 * Replaces output value objects by their plain form (secret-wrapped when marked secret, unknown when they carry no
 * value); engine state and providers that do not accept outputs never see them.
 */
export function resolveOutputValues<T extends PropertyValue>(v: T): T {
  if (Array.isArray(v)) return v.map(resolveOutputValues) as T;
  if (isObject(v)) {
    if (isOutputValue(v)) {
      const inner: PropertyValue = 'value' in v ? resolveOutputValues(v.value) : UNKNOWN;
      return (v.secret === true ? makeSecret(inner) : inner) as T;
    }
    const out: PropertyObject = {};
    for (const k in v) out[k] = resolveOutputValues(v[k]);
    return out as T;
  }
  return v;
}

/** Replaces resource references by their id (custom) or URN (component), for peers that do not accept them. */
export function downgradeResourceRefs<T extends PropertyValue>(v: T): T {
  if (Array.isArray(v)) return v.map(downgradeResourceRefs) as T;
  if (isObject(v)) {
    if (v[SIG_KEY] === RESOURCE_REF_SIG) return ('id' in v ? (v.id === '' ? UNKNOWN : v.id) : v.urn) as T;
    const out: PropertyObject = {};
    for (const k in v) out[k] = downgradeResourceRefs(v[k]);
    return out as T;
  }
  return v;
}

/**
 * Re-marks outputs as secret where the matching input was secret (Go `annotateSecrets`): a provider that strips
 * secrets must not turn a secret input into a plaintext output.
 */
export function annotateSecrets(outputs: PropertyMap, inputs: PropertyMap): PropertyMap {
  const out: PropertyMap = { ...outputs };
  for (const k of Object.keys(out)) if (containsSecrets(inputs[k]) && !isSecret(out[k])) out[k] = makeSecret(out[k]);
  return out;
}

/** Marks the named top-level outputs secret (`additionalSecretOutputs`). */
export function markSecretOutputs(outputs: PropertyMap, names: readonly string[]): PropertyMap {
  if (names.length === 0) return outputs;
  const out: PropertyMap = { ...outputs };
  for (const n of names) if (n in out) out[n] = makeSecret(out[n]);
  return out;
}

/** Structural equality of two values (key order does not matter). */
export function deepEqual(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!(k in b) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** Top-level keys whose values differ between two maps. */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !deepEqual(olds[k], news[k]));
}

/**
 * The paths of the values that differ between two input maps, down to the leaves (secrets unwrapped), as Pulumi's
 * detailed diff of an object diff names them: `a.b`, `list[2]`, `tags["k.with.dots"]`.
 */
export function changedPaths(olds: PropertyMap, news: PropertyMap): string[] {
  const out: string[] = [];
  const walk = (a: PropertyValue | undefined, b: PropertyValue | undefined, path: string): void => {
    if (isSecret(a)) a = (a as PropertyObject).value;
    if (isSecret(b)) b = (b as PropertyObject).value;
    if (deepEqual(a, b)) return;
    if (isObject(a) && isObject(b) && !(SIG_KEY in a) && !(SIG_KEY in b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], path + pathKey(k, path === ''));
    } else if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
    } else {
      out.push(path);
    }
  };
  walk(olds, news, '');
  return out;
}

function pathKey(key: string, first: boolean): string {
  if (/^[^.[\]"*]+$/.test(key)) return first ? key : `.${key}`;
  return `[${JSON.stringify(key)}]`;
}

/** Splits a property path such as `a.b[0]["c.d"]` into segments. */
export function parsePropertyPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(m[2] === '*' ? '*' : Number(m[2]));
    else out.push(m[3].replace(/\\(.)/g, '$1'));
  }
  return out;
}

/** Replaces the values of the named top-level keys with the unknown sentinel (dependent-replacement diffs). */
export function withUnknownKeys(m: PropertyMap, keys: Iterable<string>): PropertyMap {
  const out: PropertyMap = { ...m };
  for (const k of keys) if (k in out) out[k] = UNKNOWN;
  return out;
}
