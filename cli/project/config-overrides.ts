/**
 * `-c key=value` on `preview`/`up`/`refresh`/`destroy`: written to the stack's config file before the run, as
 * `pulumi` does (`parseAndSaveConfigArray`). Values are strings; with `--config-path` a key addresses a value inside
 * an object and scalars are typed as `config set --path` types them. As in `pulumi`, each top-level key given
 * replaces that key's whole value in the file: `-c --config-path a.b=1` leaves `a` as `{b: 1}`.
 */
import { parseConfigKey, typedPathValue, type PathSegment, type StackConfigFile } from './stack-config.js';

/** `-c key=value` (Pulumi's `ParseConfig`): the key before the first `=`, the rest (possibly empty) its value. */
export interface ConfigOverride {
  key: string;
  value: string;
}

/** Sets `value` at `path` inside `container`, creating maps (string segments) and lists (number segments). */
function setAtPath(container: unknown, path: PathSegment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [segment, ...rest] = path;
  const node: Record<string | number, unknown> | unknown[] =
    container !== null && typeof container === 'object' ? (container as Record<string, unknown>) : typeof segment === 'number' ? [] : {};
  (node as Record<string | number, unknown>)[segment!] = setAtPath((node as Record<string | number, unknown>)[segment!], rest, value);
  return node;
}

/** Applies the overrides to `file` (not saved). */
export function applyConfigOverrides(file: StackConfigFile, project: string, overrides: readonly ConfigOverride[], usePath: boolean): void {
  const values = new Map<string, unknown>();
  for (const { key: text, value } of overrides) {
    const key = parseConfigKey(text, project, usePath);
    values.set(key.key, key.path.length ? setAtPath(values.get(key.key), key.path, typedPathValue(value)) : value);
  }
  for (const [key, value] of values) file.set({ key, path: [] }, value);
}
