/**
 * Property values as Pulumi's display sees them (`resource.PropertyValue`), read from their wire form (signature
 * objects, the unknown sentinel), and Pulumi's structural diff of two of them (`properties_diff.go`): each key or
 * index added, deleted, the same, or updated with the diff of its parts.
 */
import { OUTPUT_VALUE_SIG, RESOURCE_REF_SIG, SECRET_SIG, SIG_KEY, UNKNOWN, type PropertyMap, type PropertyValue } from '../../resource/properties.js';

/** The signature of an asset. */
export const ASSET_SIG = 'c44067f5952c0a294b673a41bacd8c17';
/** The signature of an archive. */
export const ARCHIVE_SIG = '0def7320c3a5731c473e5ecbe6d01bc7';

/** What a value is, as Pulumi's property printer branches on it. */
export type ValueKind = 'null' | 'bool' | 'number' | 'string' | 'computed' | 'array' | 'object' | 'secret' | 'asset' | 'archive' | 'resourceRef' | 'output';

type PropertyObject = { [key: string]: PropertyValue };

/** The kind of a wire-form value. */
export function kindOf(v: PropertyValue | undefined): ValueKind {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return v === UNKNOWN ? 'computed' : 'string';
  if (Array.isArray(v)) return 'array';
  switch (v[SIG_KEY]) {
    case SECRET_SIG:
      return 'secret';
    case ASSET_SIG:
      return 'asset';
    case ARCHIVE_SIG:
      return 'archive';
    case RESOURCE_REF_SIG:
      return 'resourceRef';
    case OUTPUT_VALUE_SIG:
      return 'output';
    default:
      return 'object';
  }
}

/** Pulumi's `isPrimitive`: printed on one line. */
export function isPrimitive(v: PropertyValue | undefined): boolean {
  return ['null', 'string', 'number', 'bool', 'computed', 'output', 'secret'].includes(kindOf(v));
}

/** Keys Pulumi never displays (`__defaults`, `__provider`, …). */
export function isInternalKey(key: string): boolean {
  return key.startsWith('__');
}

/** Go's sorted keys (byte order). */
export function stableKeys(m: PropertyMap): string[] {
  return Object.keys(m).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** An object diff: `Adds`, `Deletes`, `Sames` and `Updates` of Pulumi's `ObjectDiff`. */
export interface ObjectDiff {
  adds: Map<string, PropertyValue>;
  deletes: Map<string, PropertyValue>;
  sames: Map<string, PropertyValue>;
  updates: Map<string, ValueDiff>;
}

/** An array diff, keyed by index. */
export interface ArrayDiff {
  adds: Map<number, PropertyValue>;
  deletes: Map<number, PropertyValue>;
  sames: Map<number, PropertyValue>;
  updates: Map<number, ValueDiff>;
}

/** A value diff; `array` or `object` when both sides are of that kind. */
export interface ValueDiff {
  old: PropertyValue;
  new: PropertyValue;
  array?: ArrayDiff;
  object?: ObjectDiff;
}

/** An empty object diff. */
export function emptyObjectDiff(): ObjectDiff {
  return { adds: new Map(), deletes: new Map(), sames: new Map(), updates: new Map() };
}

/** An empty array diff. */
export function emptyArrayDiff(): ArrayDiff {
  return { adds: new Map(), deletes: new Map(), sames: new Map(), updates: new Map() };
}

/** `ObjectDiff.Keys`: every key of the diff, sorted. */
export function diffKeys(d: ObjectDiff): string[] {
  const all: PropertyMap = {};
  for (const m of [d.adds, d.deletes, d.sames, d.updates]) for (const k of m.keys()) all[k] = null;
  return stableKeys(all);
}

/** `ObjectDiff.AnyChanges`. */
export function anyChanges(d: ObjectDiff | undefined): boolean {
  return d !== undefined && d.adds.size + d.deletes.size + d.updates.size > 0;
}

/** `ArrayDiff.Len`: one past the highest index it mentions. */
export function arrayDiffLength(d: ArrayDiff): number {
  let n = 0;
  for (const m of [d.adds, d.deletes, d.sames, d.updates]) for (const i of m.keys()) n = Math.max(n, i + 1);
  return n;
}

/** Keys a diff leaves out (the display leaves out internal keys). */
export type IgnoreKey = (key: string) => boolean;

/** `PropertyMap.Diff`: undefined when nothing was added, deleted or updated. */
export function diffObjects(olds: PropertyMap, news: PropertyMap, ignore: IgnoreKey = () => false): ObjectDiff | undefined {
  const d = emptyObjectDiff();
  for (const [k, old] of Object.entries(olds)) {
    if (ignore(k)) continue;
    if (k in news) {
      const nv = news[k]!;
      const change = diffValues(old, nv, ignore);
      if (!change) d.sames.set(k, old);
      else if (old === null) d.adds.set(k, nv);
      else if (nv === null) d.deletes.set(k, old);
      else d.updates.set(k, change);
    } else if (old !== null) d.deletes.set(k, old);
  }
  for (const [k, nv] of Object.entries(news)) {
    if (!ignore(k) && !(k in olds) && nv !== null) d.adds.set(k, nv);
  }
  return anyChanges(d) ? d : undefined;
}

/** `PropertyValue.Diff`: undefined when the values are deeply equal. */
export function diffValues(old: PropertyValue, nv: PropertyValue, ignore: IgnoreKey = () => false): ValueDiff | undefined {
  if (Array.isArray(old) && Array.isArray(nv)) {
    const a = emptyArrayDiff();
    for (let i = old.length; i < nv.length; i++) a.adds.set(i, nv[i]!);
    for (let i = nv.length; i < old.length; i++) a.deletes.set(i, old[i]!);
    for (let i = 0; i < old.length && i < nv.length; i++) {
      const e = diffValues(old[i]!, nv[i]!, ignore);
      if (e) a.updates.set(i, e);
      else a.sames.set(i, old[i]!);
    }
    return a.adds.size + a.deletes.size + a.updates.size > 0 ? { old, new: nv, array: a } : undefined;
  }
  if (kindOf(old) === 'object' && kindOf(nv) === 'object') {
    const object = diffObjects(old as PropertyObject, nv as PropertyObject, ignore);
    return object ? { old, new: nv, object } : undefined;
  }
  return deepEquals(old, nv) ? undefined : { old, new: nv };
}

/** `PropertyValue.DeepEquals`; a secret's or output's parts compared, an asset by hash. */
export function deepEquals(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  if (kind === 'null' || kind === 'computed') return true;
  if (kind === 'bool' || kind === 'number' || kind === 'string') return a === b;
  if (Array.isArray(a)) {
    const bb = b as PropertyValue[];
    return a.length === bb.length && a.every((x, i) => deepEquals(x, bb[i]));
  }
  const x = a as PropertyObject;
  const y = b as PropertyObject;
  // Go's Asset.Equals / Archive.Equals: by hash when both have one, by contents otherwise.
  if ((kind === 'asset' || kind === 'archive') && x.hash && y.hash) return x.hash === y.hash;
  if (kind === 'secret') return deepEquals(x.value ?? x.ciphertext ?? null, y.value ?? y.ciphertext ?? null);
  if (kind === 'resourceRef') return x.urn === y.urn && (x.id === UNKNOWN && y.id === UNKNOWN || deepEquals(x.id ?? null, y.id ?? null));
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) {
    if (k in x && k in y) {
      if (!deepEquals(x[k], y[k])) return false;
    } else if ((x[k] ?? y[k] ?? null) !== null) return false;
  }
  return true;
}

/** The element of a secret as Pulumi's events carry it: the value, or `[secret]` once blinded. */
export function secretElement(v: PropertyValue): PropertyValue {
  const o = v as PropertyObject;
  return o.value ?? o.ciphertext ?? null;
}
