/**
 * `stackyard env get` and `env diff`, as ESC's CLI (`cmd/esc/cli/env_get.go`, `env_diff.go`): the checked value
 * (secrets as `[secret]` unless `--show-secrets`, providers' values `[unknown]`) and the definition in ESC's markdown,
 * one member with where it is defined, `--definition`, or `--value <format>`; a diff compares two versions' renderings.
 */
import { parsePath, toJSON, type EscEnvironment, type EscExpr, type EscValue } from '../../../shared/esc/index.js';
import type { EnvironmentsBackend } from '../../backend/environments-backend.js';
import { definitionNodeAt, renderDefinition } from '../../environments/definition.js';
import { formatEnvironmentArg, type EnvironmentArg } from '../../environments/refs.js';
import { checkFormat, goIndentJSON, renderValue, valueAt } from '../../environments/render.js';
import { unifiedDiff } from '../../../shared/esc/unified-diff.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { escSession, existingFromArgs, takeVersionedPath } from './env-context.js';

/** What `env get` shows (ESC's envGetTemplateData). */
interface Shown {
  value: string;
  definition: string;
  stack: string[];
}

const VALUE_FORMATS = ['dotenv', 'json', 'detailed', 'shell', 'string'];

/** ESC's env-get template. */
function markdown(shown: Shown): string {
  let out = '';
  if (shown.value) out += `# Value\n\`\`\`json\n${shown.value}\n\`\`\`\n`;
  if (shown.definition) out += `# Definition\n\`\`\`yaml\n${shown.definition}\n\`\`\`\n`;
  if (shown.stack.length > 0) out += `\n# Defined at\n${shown.stack.map((s) => `- ${s}\n`).join('')}`;
  return `${out}\n`;
}

async function checkedVersion(envs: EnvironmentsBackend, ref: EnvironmentArg, showSecrets: boolean): Promise<EscEnvironment | undefined> {
  const { environment } = await envs.check(ref, ref.version || undefined, showSecrets);
  return environment;
}

/** The expression at a path (ESC's getEnvExpr). */
function exprAt(root: EscExpr, path: (string | number)[]): EscExpr | undefined {
  let at: EscExpr | undefined = root;
  for (const part of path) {
    if (!at) return undefined;
    if (at.builtin) at = part === at.builtin.name ? at.builtin.arg : undefined;
    else if (at.list) at = typeof part === 'number' ? at.list[part] : undefined;
    else if (at.object) at = typeof part === 'string' ? at.object[part] : undefined;
    else return undefined;
  }
  return at;
}

/** What `env get` shows for a whole environment or one member of it. */
async function shown(envs: EnvironmentsBackend, ref: EnvironmentArg, path: (string | number)[], showSecrets: boolean): Promise<Shown | undefined> {
  const { yaml } = await envs.getDefinition(ref, ref.version || undefined, showSecrets);
  const definition = renderDefinition(yaml);
  if (path.length === 0) {
    if (yaml.trim() === '') return { value: '', definition: yaml, stack: [] };
    const env = await checkedVersion(envs, ref, showSecrets);
    if (!env) return undefined;
    return { value: goIndentJSON(toJSON({ value: env.properties ?? {} }, !showSecrets)), definition, stack: [] };
  }
  if (yaml.trim() === '') return undefined;
  if (path[0] === 'imports') {
    const node = definitionNodeAt(yaml, path);
    return node === undefined ? undefined : { value: '', definition: node, stack: [] };
  }
  const env = await checkedVersion(envs, ref, showSecrets);
  if (!env) return undefined;
  const value = valueAt({ value: env.properties ?? {} }, path);
  const member = definitionNodeAt(yaml, ['values', ...path]);
  const ranges: { environment: string; begin: { line: number; column: number } }[] = [];
  if (member !== undefined) {
    for (let x = exprAt({ object: env.exprs } as EscExpr, path); x; x = x.base) ranges.push(x.range);
  } else {
    for (let v: EscValue | undefined = value; v; v = v.trace?.base) if (v.trace?.def) ranges.push(v.trace.def);
  }
  return {
    value: value ? goIndentJSON(toJSON(value, !showSecrets)) : '',
    definition: member ?? '',
    stack: ranges.map((r) => `${r.environment === '<yaml>' ? ref.name : r.environment}:${r.begin.line}:${r.begin.column}`),
  };
}

/** One version's value in a format (`--value`, and `env diff --format`). */
async function formattedValue(envs: EnvironmentsBackend, ref: EnvironmentArg, path: (string | number)[], format: string, showSecrets: boolean): Promise<string> {
  const { yaml } = await envs.getDefinition(ref, ref.version || undefined, showSecrets);
  const env = yaml.trim() === '' ? ({ properties: {} } as unknown as EscEnvironment) : await checkedVersion(envs, ref, showSecrets);
  if (!env) return '';
  return renderValue(env, path, checkFormat(format, VALUE_FORMATS, path.length > 0), { showSecrets });
}

/** `env get <env>[@version] [path] [--value fmt | --definition] [--show-secrets]`. */
export const envGet: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  const path = rest[0] !== undefined ? parsePath(rest[0]) : [];
  const format = (opts.value as string | undefined) ?? '';
  const showSecrets = opts.showSecrets === true;
  if (opts.definition === true && format !== '') throw new UserError('`--value` and `--definition` flags cannot be used together');
  if (format !== '') {
    process.stdout.write(await formattedValue(session.envs, ref, path, format, showSecrets));
    return;
  }
  const data = await shown(session.envs, ref, path, showSecrets);
  if (!data) return;
  process.stdout.write(opts.definition === true ? data.definition : markdown(data));
};

/** `env diff <env>[@version] [[env]@version] [--format fmt] [--path p] [--show-secrets]`: base against compare (default: latest). */
export const envDiff: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  const base = { ...ref, version: ref.version || 'latest' };
  const compare = rest[0] !== undefined ? await session.existing(rest[0], base) : { ...base, version: 'latest' };
  const path = takeVersionedPath(opts.path);
  const format = (opts.format as string | undefined) ?? '';
  const showSecrets = opts.showSecrets === true;
  const [baseName, compareName] = [formatEnvironmentArg(base), formatEnvironmentArg({ ...compare, version: compare.version || 'latest' })];
  if (format !== '') {
    checkFormat(format, VALUE_FORMATS, path.length > 0);
    const [a, b] = [await formattedValue(session.envs, base, path, format, showSecrets), await formattedValue(session.envs, compare, path, format, showSecrets)];
    process.stdout.write(unifiedDiff(baseName, a, compareName, b));
    return;
  }
  const empty: Shown = { value: '', definition: '', stack: [] };
  const a = (await shown(session.envs, base, path, showSecrets)) ?? empty;
  const b = (await shown(session.envs, compare, path, showSecrets)) ?? empty;
  const value = unifiedDiff(baseName, a.value, compareName, b.value);
  const definition = unifiedDiff(baseName, a.definition, compareName, b.definition);
  let out = '';
  if (value) out += `# Value\n\`\`\`diff\n${value}\n\`\`\`\n`;
  if (definition) out += `# Definition\n\`\`\`diff\n${definition}\n\`\`\`\n`;
  process.stdout.write(out);
};
