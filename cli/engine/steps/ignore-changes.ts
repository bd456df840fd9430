/**
 * The `ignoreChanges` resource option, with the semantics of Pulumi's `processIgnoreChanges` and
 * `PropertyPath.Reset` (sdk/go/common/resource/properties_path.go): each path's value in the new inputs is reset to
 * the old one, or removed when the old inputs lack it. A path that runs through an element added or removed on
 * one side only (a missing parent object, an index past the end of one array, arrays of different lengths under
 * `[*]`) cannot be reset: the new inputs keep what the program gave there, and the path is reported.
 */
import { isSecret, makeSecret, parsePropertyPath, SIG_KEY, type PropertyMap, type PropertyValue } from '../resource/properties.js';

type Segment = string | number;
type PlainObject = { [key: string]: PropertyValue };

/** The inputs with every ignored path reset, and the paths that could not be reset. */
export function applyIgnoreChanges(olds: PropertyMap, news: PropertyMap, paths: readonly string[]): { inputs: PropertyMap; invalidPaths: string[] } {
  if (paths.length === 0) return { inputs: news, invalidPaths: [] };
  const inputs = structuredClone(news);
  const invalidPaths = paths.filter((p) => {
    const segs = parsePropertyPath(p);
    return segs.length > 0 && !reset(segs, olds, inputs, false, false);
  });
  return { inputs, invalidPaths };
}

/** Pulumi's message for paths that could not be reset (an info diagnostic, the run goes on). */
export function invalidIgnoreChangesMessage(paths: readonly string[]): string {
  return `cannot ignore changes in added or removed elements of the path: ${JSON.stringify(paths.join(', '))}`;
}

/** An object that is a plain map (not a secret, asset, archive, resource reference or output value). */
function isPlain(v: PropertyValue | undefined): v is PlainObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(SIG_KEY in v);
}

function unwrap(v: PropertyValue | undefined): { value: PropertyValue | undefined; secret: boolean } {
  return isSecret(v) ? { value: (v as PlainObject).value, secret: true } : { value: v, secret: false };
}

/** Resets `segs` in `newValue` (mutated in place) from `oldValue`; false on a path error. */
function reset(segs: Segment[], oldValue: PropertyValue | undefined, newValue: PropertyValue | undefined, oldSecret: boolean, newSecret: boolean): boolean {
  const o = unwrap(oldValue);
  const n = unwrap(newValue);
  const old = o.value;
  const cur = n.value;
  oldSecret ||= o.secret;
  newSecret ||= n.secret;
  // a value taken from a secret context into a plain one stays secret
  const kept = (v: PropertyValue) => (oldSecret && !newSecret ? makeSecret(v) : v);
  const [key, ...rest] = segs;
  const leaf = rest.length === 0;

  if (typeof key === 'number') {
    if (key < 0) return false;
    if (!Array.isArray(old) || !Array.isArray(cur)) return !Array.isArray(old) && !Array.isArray(cur);
    if (leaf && key >= old.length && key >= cur.length) return true;
    if (key >= old.length || key >= cur.length) return false;
    if (leaf) {
      cur[key] = kept(old[key]!);
      return true;
    }
    return reset(rest, old[key], cur[key], oldSecret, newSecret);
  }

  if (key === '*') {
    if (leaf) {
      if (isPlain(cur)) {
        if (isPlain(old)) {
          for (const k of Object.keys(old)) cur[k] = kept(old[k]!);
          for (const k of Object.keys(cur)) if (!(k in old)) delete cur[k];
        }
        return true;
      }
      if (Array.isArray(cur)) {
        if (!Array.isArray(old)) return true;
        for (let i = 0; i < Math.min(old.length, cur.length); i++) cur[i] = kept(old[i]!);
        return old.length === cur.length;
      }
      return false;
    }
    if (isPlain(old) && isPlain(cur)) {
      return Object.keys(old).every((k) => k in cur && reset(rest, old[k], cur[k], oldSecret, newSecret));
    }
    if (Array.isArray(old) && Array.isArray(cur)) {
      for (let i = 0; i < Math.min(old.length, cur.length); i++) if (!reset(rest, old[i], cur[i], oldSecret, newSecret)) return false;
      return old.length === cur.length;
    }
    return false;
  }

  if (leaf) {
    if (isPlain(old) && key in old) {
      if (!isPlain(cur)) return false;
      cur[key] = kept(old[key]!);
    } else if (isPlain(cur)) {
      delete cur[key];
    }
    return true;
  }
  if (!isPlain(old) || !isPlain(cur)) return !isPlain(old) && !isPlain(cur);
  const hasOld = key in old;
  const hasNew = key in cur;
  if (hasOld && !hasNew) return false;
  if (!hasNew) return true;
  return reset(rest, old[key], cur[key], oldSecret, newSecret);
}
