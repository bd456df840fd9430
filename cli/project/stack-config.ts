/**
 * A stack's configuration file, `Pulumi.<stack>.yaml`, in Pulumi's layout: values under `config:` keyed
 * `namespace:key`, secrets as `{secure: <ciphertext>}` (at the top or anywhere inside an object value). Edits keep
 * the rest of the file (comments, order, other top-level keys) as it was.
 */
import { promises as fs } from 'node:fs';
import { isMap, parseDocument, type Document } from 'yaml';
import { UserError } from '../output/errors.js';
import { checkStackFileKeys } from './file-keys.js';
import { yamlErrorText } from './yaml-errors.js';

/** A segment of a `--path` key: a map key or a list index. */
export type PathSegment = string | number;

/** A parsed configuration key: `namespace:name` plus the path inside its value (empty without `--path`). */
export interface ConfigKey {
  key: string;
  path: PathSegment[];
}

/** `{secure: <ciphertext>}`, Pulumi's encoding of a secret in a config file. */
export interface SecureValue {
  secure: string;
}

export function isSecureValue(value: unknown): value is SecureValue {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof (value as { secure?: unknown }).secure === 'string' &&
    Object.keys(value).length === 1
  );
}

/**
 * Parses a key as `pulumi config` does: `name` belongs to the project, `ns:name` to namespace `ns`, `ns:config:name`
 * is the long form of `ns:name`. With `usePath`, `a.b[0]["c.d"]` addresses a value inside `a`.
 */
export function parseConfigKey(text: string, project: string, usePath: boolean): ConfigKey {
  const segments = usePath ? parsePropertyPath(text) : [text];
  const [first, ...path] = segments;
  if (typeof first !== 'string' || first === '') throw new UserError(`invalid configuration key '${text}'`, 'A key is `name` or `namespace:name`.');
  const parts = first.split(':');
  let key: string;
  if (parts.length === 1) key = `${project}:${first}`;
  else if (parts.length === 2 && parts[0] && parts[1]) key = first;
  else if (parts.length === 3 && parts[1] === 'config' && parts[0] && parts[2]) key = `${parts[0]}:${parts[2]}`;
  else throw new UserError(`invalid configuration key '${text}'`, 'A key is `name` or `namespace:name`.');
  return { key, path };
}

/** `a.b[0]["c.d"]` → `['a', 'b', 0, 'c.d']`. */
export function parsePropertyPath(text: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  const fail = () => new UserError(`invalid property path '${text}'`, 'Use `a.b`, `a[0]` or `["a.b"]` segments.');
  while (i < text.length) {
    if (text[i] === '[') {
      if (text[i + 1] === '"') {
        const end = text.indexOf('"]', i + 2);
        if (end < 0) throw fail();
        segments.push(text.slice(i + 2, end));
        i = end + 2;
      } else {
        const end = text.indexOf(']', i);
        const digits = text.slice(i + 1, end);
        if (end < 0 || !/^\d+$/.test(digits)) throw fail();
        segments.push(Number(digits));
        i = end + 1;
      }
    } else {
      if (text[i] === '.') {
        if (segments.length === 0) throw fail();
        i++;
      }
      let end = i;
      while (end < text.length && text[end] !== '.' && text[end] !== '[') end++;
      if (end === i) throw fail();
      segments.push(text.slice(i, end));
      i = end;
    }
  }
  if (segments.length === 0) throw fail();
  return segments;
}

/** With `--path`, `true`, `false` and integers become YAML booleans and numbers, as `pulumi config set --path` does. */
export function typedPathValue(value: string): string | number | boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?\d+$/.test(value) && Number.isSafeInteger(Number(value)) && String(Number(value)) === value) return Number(value);
  return value;
}

/** Every ciphertext in a value, depth first. */
export function collectCiphertexts(value: unknown, into: string[] = []): string[] {
  if (isSecureValue(value)) into.push(value.secure);
  else if (Array.isArray(value)) for (const v of value) collectCiphertexts(v, into);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collectCiphertexts(v, into);
  return into;
}

/** Replaces every `{secure}` in a value by `replace(ciphertext)`. */
export function mapSecureValues(value: unknown, replace: (ciphertext: string) => unknown): unknown {
  if (isSecureValue(value)) return replace(value.secure);
  if (Array.isArray(value)) return value.map((v) => mapSecureValues(v, replace));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapSecureValues(v, replace)]));
  }
  return value;
}

const SECRETS_SETTINGS = ['encryptionsalt', 'secretsprovider', 'encryptedkey'] as const;

export class StackConfigFile {
  private constructor(
    readonly path: string,
    private readonly doc: Document,
    readonly exists: boolean,
    /** `<project>/<env>` when the stack keeps its configuration in that ESC environment (remote config). */
    readonly remoteEnvironment?: string,
  ) {}

  /**
   * A remote-config stack's configuration as Pulumi loads it (httpstate `LoadRemoteConfig`): no values of its own,
   * its one environment imported. `path` is where `Pulumi.<stack>.yaml` would be; it is never read or written.
   */
  static remote(path: string, environment: string): StackConfigFile {
    const doc = parseDocument('');
    doc.set('environment', doc.createNode([environment]));
    return new StackConfigFile(path, doc, false, environment);
  }

  /** Reads the file; a missing file is an empty configuration. */
  static async load(path: string): Promise<StackConfigFile> {
    const text = await fs.readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    const doc = parseDocument(text ?? '');
    if (doc.errors.length > 0) {
      throw new UserError(`${path} is not valid YAML: ${yamlErrorText(text ?? '')}`, 'Fix the file and run the command again.');
    }
    const top: unknown = doc.toJS();
    if (top !== null && typeof top === 'object' && !Array.isArray(top)) checkStackFileKeys(path, top as Record<string, unknown>);
    const config = doc.get('config');
    if (config !== undefined && config !== null && !isMap(config)) {
      throw new UserError(`${path}: \`config\` must be a mapping of keys to values`, 'Fix the file and run the command again.');
    }
    return new StackConfigFile(path, doc, text !== undefined);
  }

  /** Top-level configuration values, sorted by key, as plain data. */
  entries(): [string, unknown][] {
    const config = (this.doc.toJS() as { config?: Record<string, unknown> } | null)?.config ?? {};
    return Object.entries(config).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The ESC environments the stack imports (`environment:`, a list of `[project/]env` names, in import order). */
  environments(): string[] {
    const list: unknown = (this.doc.toJS() as { environment?: unknown } | null)?.environment;
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list) || list.some((name) => typeof name !== 'string')) {
      throw new UserError(`${this.path}: \`environment\` must be a list of environment names`, 'Write it as `environment: [project/env, …]`.');
    }
    return list as string[];
  }

  /** Replaces the import list; an empty one leaves no `environment:` at all. */
  setEnvironments(names: string[]): void {
    if (names.length === 0) this.doc.delete('environment');
    else this.doc.set('environment', this.doc.createNode(names));
  }

  /** The value at a key (and path), or `undefined`. */
  get(key: ConfigKey): unknown {
    let value: unknown = Object.fromEntries(this.entries())[key.key];
    for (const segment of key.path) {
      if (value === null || typeof value !== 'object' || isSecureValue(value)) return undefined;
      value = (value as Record<string | number, unknown>)[segment];
    }
    return value;
  }

  set(key: ConfigKey, value: unknown): void {
    const target = ['config', key.key, ...key.path];
    if (key.path.length > 0) this.checkContainers(key);
    this.doc.setIn(target, this.doc.createNode(value));
  }

  /** Replaces every value (the rest of the file stays); an empty set leaves no `config:` at all, as Pulumi writes it. */
  replaceAll(values: Record<string, unknown>): void {
    if (Object.keys(values).length === 0) this.doc.delete('config');
    else this.doc.set('config', this.doc.createNode(values));
  }

  /** Removes a key (or a path inside it); `false` when there was nothing to remove. */
  remove(key: ConfigKey): boolean {
    if (this.get(key) === undefined) return false;
    const target = ['config', key.key, ...key.path];
    const last = key.path.at(-1);
    if (typeof last === 'number') {
      // Removing a list item shifts the rest down, as `pulumi config rm --path 'a[0]'` does.
      const list = this.get({ key: key.key, path: key.path.slice(0, -1) }) as unknown[];
      this.doc.setIn(target.slice(0, -1), this.doc.createNode(list.filter((_, i) => i !== last)));
    } else {
      this.doc.deleteIn(target);
    }
    return true;
  }

  /** The secrets provider settings Pulumi keeps at the top of the file (`encryptionsalt`, `secretsprovider`, `encryptedkey`). */
  secretsSettings(): { encryptionsalt?: string; secretsprovider?: string; encryptedkey?: string } {
    const settings: { encryptionsalt?: string; secretsprovider?: string; encryptedkey?: string } = {};
    for (const name of SECRETS_SETTINGS) {
      const value = this.doc.get(name);
      if (typeof value === 'string' && value !== '') settings[name] = value;
    }
    return settings;
  }

  /** Removes those settings: the values are then the stack's own (its key in stackyard). */
  clearSecretsSettings(): void {
    for (const name of SECRETS_SETTINGS) this.doc.delete(name);
  }

  /** The file's text as `save` would write it. */
  text(): string {
    return this.doc.toString();
  }

  async save(): Promise<void> {
    if (this.remoteEnvironment !== undefined) {
      // Pulumi's SaveRemoteConfig refuses any change of values the same way.
      throw new UserError(
        'cannot set config for a stack with cloud config',
        `This stack keeps its configuration in the ESC environment ${this.remoteEnvironment}: change it there with \`stackyard env set ${this.remoteEnvironment} pulumiConfig.<key> <value>\`.`,
      );
    }
    await fs.writeFile(this.path, this.doc.toString());
  }

  /** A path may only go through maps and lists; setting `a.b` when `a` is a string is a mistake, not an overwrite. */
  private checkContainers(key: ConfigKey): void {
    let value: unknown = Object.fromEntries(this.entries())[key.key];
    for (const [i, segment] of key.path.entries()) {
      if (value === undefined || value === null) return;
      const isList = Array.isArray(value);
      const isMapValue = typeof value === 'object' && !isList && !isSecureValue(value);
      if ((typeof segment === 'number' && !isList) || (typeof segment === 'string' && !isMapValue)) {
        const where = [key.key, ...key.path.slice(0, i)].join('.');
        throw new UserError(
          `configuration value '${where}' is not a ${typeof segment === 'number' ? 'list' : 'map'}`,
          'Remove it first with `stackyard config rm`, or use another path.',
        );
      }
      value = (value as Record<string | number, unknown>)[segment];
    }
  }
}
