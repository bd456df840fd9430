/**
 * How ESC's CLI prints an environment's values (`cmd/esc/cli/env_open.go`, `prepare.go`): `json` and `detailed` as Go's
 * indented JSON (keys sorted, HTML characters escaped), `yaml`, `string` (ESC's ToString), and `dotenv`/`shell`: the
 * `environmentVariables` and `files` projections, sorted, each value quoted as Go quotes it.
 */
import { stringify } from 'yaml';
import { environmentVariables, files, goJSONString, goQuote, toEscString, toJSON, type EscEnvironment, type EscValue, type JsonValue } from '../../shared/esc/index.js';
import { UserError } from '../output/errors.js';

/** The formats `env open` takes; `env get --value` takes all but `yaml`. */
export const OPEN_FORMATS = ['dotenv', 'json', 'yaml', 'detailed', 'shell', 'string'] as const;
export type ValueFormat = (typeof OPEN_FORMATS)[number];

/**
 * Go's json.MarshalIndent(v, "", "  "): map keys sorted; with `sorted` false, keys in the order given (a Go
 * struct's fields in declaration order).
 */
export function goIndentJSON(v: JsonValue, indent = '', sorted = true): string {
  const inner = `${indent}  `;
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${v.map((x) => inner + goIndentJSON(x, inner, sorted)).join(',\n')}\n${indent}]`;
  if (v !== null && typeof v === 'object') {
    const keys = sorted ? Object.keys(v).sort() : Object.keys(v);
    return keys.length === 0 ? '{}' : `{\n${keys.map((k) => `${inner}${goJSONString(k)}: ${goIndentJSON(v[k]!, inner, sorted)}`).join(',\n')}\n${indent}}`;
  }
  return typeof v === 'string' ? goJSONString(v) : JSON.stringify(v);
}

/** An esc.Value in Go's field order (`value`, `secret`, `unknown`, `trace`), as `--format detailed` prints it. */
function detailedJSON(v: EscValue): JsonValue {
  const inner = v.value;
  let value: JsonValue;
  if (Array.isArray(inner)) value = inner.map(detailedJSON);
  else if (inner !== null && typeof inner === 'object') value = Object.fromEntries(Object.entries(inner).map(([k, x]) => [k, detailedJSON(x)]));
  else value = inner;
  const pos = (p: { line: number; column: number; byte: number } | undefined) => ({ line: p?.line ?? 0, column: p?.column ?? 0, byte: p?.byte ?? 0 });
  const def = v.trace?.def;
  const trace: Record<string, JsonValue> = {
    def: { ...(def?.environment ? { environment: def.environment } : {}), begin: pos(def?.begin), end: pos(def?.end) },
    ...(v.trace?.base ? { base: detailedJSON(v.trace.base) } : {}),
  };
  return { value, ...(v.secret ? { secret: true } : {}), ...(v.unknown ? { unknown: true } : {}), trace };
}

/** The value at a property path (ESC's getEnvValue), or undefined. */
export function valueAt(root: EscValue, path: (string | number)[]): EscValue | undefined {
  let at: EscValue | undefined = root;
  for (const part of path) {
    const inner: EscValue['value'] | undefined = at?.value;
    if (Array.isArray(inner) && typeof part === 'number') at = inner[part];
    else if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && typeof part === 'string') at = inner[part];
    else return undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** The projections an environment exports: `NAME=value` pairs (variables, then files) and the secrets among them. */
export interface Projection {
  /** `NAME=value` (quoted when asked), variables sorted, then files sorted. */
  environ: string[];
  /** Plaintext of every secret exported, for redaction. */
  secrets: string[];
  /** Temporary files written, to remove afterwards. */
  paths: string[];
}

/**
 * ESC's PrepareEnvironment: `environmentVariables` as variables and `files` as temporary files (0600) whose paths
 * are exported. With `writeFile` absent (pretend), file paths are `[unknown]`; with `redact`, secret variables are
 * `[secret]`.
 */
export async function prepareEnvironment(
  env: EscEnvironment,
  options: { quote: boolean; redact: boolean; writeFile?: (content: string) => Promise<string> },
): Promise<Projection> {
  const show = (s: string) => (options.quote ? goQuote(s) : s);
  const environ: string[] = [];
  const secrets: string[] = [];
  const paths: string[] = [];
  const variables = environmentVariables(env);
  for (const name of Object.keys(variables).sort()) {
    const value = String(variables[name]!.value);
    if (variables[name]!.secret) secrets.push(value);
    environ.push(`${name}=${show(variables[name]!.secret && options.redact ? '[secret]' : value)}`);
  }
  const wanted = files(env);
  for (const name of Object.keys(wanted).sort()) {
    const content = String(wanted[name]!.value);
    if (wanted[name]!.secret) secrets.push(content);
    let path = '[unknown]';
    if (options.writeFile) {
      path = await options.writeFile(content);
      paths.push(path);
    }
    environ.push(`${name}=${show(path)}`);
  }
  return { environ, secrets, paths };
}

/**
 * Renders an environment (or the value at `path`) in a format, as ESC's renderValue. `pretend`: files are not
 * written (their paths are `[unknown]`), as `env get --value` does; `env open` writes them and leaves them.
 */
export async function renderValue(
  env: EscEnvironment,
  path: (string | number)[],
  format: ValueFormat,
  options: { showSecrets: boolean; writeFile?: (content: string) => Promise<string> },
): Promise<string> {
  const root: EscValue = { value: env.properties ?? {} };
  const value = path.length === 0 ? root : (valueAt(root, path) ?? { value: null });
  const redact = !options.showSecrets;
  switch (format) {
    case 'json':
      return `${goIndentJSON(toJSON(value, redact))}\n`;
    case 'yaml':
      return stringify(toJSON(value, redact), { indent: 3 });
    case 'detailed':
      return `${goIndentJSON(detailedJSON(value), '', false)}\n`;
    case 'dotenv':
    case 'shell': {
      const { environ } = await prepareEnvironment(env, { quote: true, redact, writeFile: options.writeFile });
      return environ.map((kv) => (format === 'shell' ? `export ${kv}\n` : `${kv}\n`)).join('');
    }
    case 'string': {
      const text = toEscString(value, redact);
      return text.endsWith('\n') ? text : `${text}\n`;
    }
  }
}

/** Checks a format name (and that `dotenv`/`shell` come without a path), with ESC's messages. */
export function checkFormat(format: string, allowed: readonly string[], hasPath: boolean): ValueFormat {
  if (!allowed.includes(format)) throw new UserError(`unknown output format "${format}"`);
  if ((format === 'dotenv' || format === 'shell') && hasPath) throw new UserError(`output format '${format}' may not be used with a property path`);
  return format as ValueFormat;
}
