import type { PropertyChange, ReplacedResource, ResourceRef, StateDiff, UpdatedResource } from './types.js';

/** The signature key and value of a secret in a stored deployment (`{sig, ciphertext}`). */
const SIG_KEY = '4dabf18193072939515e22adb298388d';
const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';

/** Resource fields that are not compared as fields: the key, the id (replacement), the values, and timestamps. */
const NOT_FIELDS = new Set(['urn', 'type', 'id', 'inputs', 'outputs', 'created', 'modified']);

type Stored = Record<string, unknown> & { urn: string; type: string; id?: string };

/** Whether `value` is a stored secret (`{sig: SECRET_SIG, ciphertext | plaintext}`): compared and shown as one value. */
export function isSecretValue(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value[SIG_KEY] === SECRET_SIG;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * The changes between two values at `path`, appended to `out`: plain objects key by key (keys in order, added keys
 * after), anything else — arrays, secrets, assets, values whose kind changed — as one change.
 */
function diffValue(path: string[], old: unknown, next: unknown, out: PropertyChange[]): void {
  if (jsonEqual(old, next)) return;
  if (isPlainObject(old) && isPlainObject(next) && !isSecretValue(old) && !isSecretValue(next)) {
    for (const key of Object.keys(old)) {
      const child = [...path, key];
      if (!Object.hasOwn(next, key)) out.push({ path: child, kind: 'delete', old: old[key] });
      else diffValue(child, old[key], next[key], out);
    }
    for (const key of Object.keys(next)) {
      if (!Object.hasOwn(old, key)) out.push({ path: [...path, key], kind: 'add', new: next[key] });
    }
    return;
  }
  if (old === undefined) out.push({ path, kind: 'add', new: next });
  else if (next === undefined) out.push({ path, kind: 'delete', old });
  else out.push({ path, kind: 'update', old, new: next });
}

/** Every change between two states of one resource: inputs, outputs, then its other fields. */
export function diffResource(old: Stored, next: Stored): PropertyChange[] {
  const out: PropertyChange[] = [];
  diffValue(['inputs'], old.inputs ?? {}, next.inputs ?? {}, out);
  diffValue(['outputs'], old.outputs ?? {}, next.outputs ?? {}, out);
  for (const key of new Set([...Object.keys(old), ...Object.keys(next)])) {
    if (!NOT_FIELDS.has(key)) diffValue([key], old[key], next[key], out);
  }
  return out;
}

/** The live resources of a deployment by URN; resources pending deletion (`delete: true`) are not live. */
function liveResources(deployment: Record<string, unknown>): Map<string, Stored> {
  const byUrn = new Map<string, Stored>();
  const resources = Array.isArray(deployment.resources) ? (deployment.resources as unknown[]) : [];
  for (const resource of resources) {
    if (!isPlainObject(resource) || typeof resource.urn !== 'string' || resource.delete === true) continue;
    byUrn.set(resource.urn, resource as Stored);
  }
  return byUrn;
}

function refOf(resource: Stored): ResourceRef {
  return { urn: resource.urn, type: resource.type, ...(typeof resource.id === 'string' && resource.id !== '' ? { id: resource.id } : {}) };
}

/**
 * The changes from one deployment (`{manifest, resources, …}`) to another, keyed by URN in one pass over each: a
 * URN only in `to` is added, only in `from` removed; the same URN with another id is replaced (Pulumi's replacement
 * keeps the URN and gets a new id from the provider, whether created before or after the delete); the same URN and
 * id with any changed input, output or field is updated. Unchanged resources are not listed. Results are in the
 * order of `to`'s resources (removed ones in the order of `from`'s).
 */
export function diffDeployments(from: Record<string, unknown>, to: Record<string, unknown>): Omit<StateDiff, 'from' | 'to'> {
  const olds = liveResources(from);
  const news = liveResources(to);
  const added: ResourceRef[] = [];
  const replaced: ReplacedResource[] = [];
  const updated: UpdatedResource[] = [];
  for (const [urn, next] of news) {
    const old = olds.get(urn);
    if (!old) {
      added.push(refOf(next));
      continue;
    }
    const oldId = old.id ?? '';
    const newId = next.id ?? '';
    if (oldId !== newId) {
      replaced.push({ ...refOf(next), oldId, diffs: diffResource(old, next) });
      continue;
    }
    const diffs = diffResource(old, next);
    if (diffs.length > 0) updated.push({ urn, type: next.type, diffs });
  }
  const removed: ResourceRef[] = [];
  for (const [urn, old] of olds) if (!news.has(urn)) removed.push(refOf(old));
  return { added, removed, replaced, updated };
}
