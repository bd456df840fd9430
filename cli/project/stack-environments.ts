/**
 * A stack's ESC environments (`environment:` in `Pulumi.<stack>.yaml`), opened before the program runs as the `pulumi`
 * CLI does: each is opened on the backend (in order, later imports over earlier ones, objects merged key by key, as
 * ESC merges imports), `values.pulumiConfig` becomes configuration under the stack's own (stack values win) and
 * `values.environmentVariables` reach the program and its providers, as do `values.files` (the variable names a
 * temporary file holding the content). Secrets stay marked, so the program gets them as
 * secret configuration and the engine keeps them encrypted in the state.
 */
import { formatEnvironmentRef, type EnvironmentRef } from '../../shared/core/names.js';
import { environmentVariables, files, pulumiConfig, toJSON, type Diagnostic, type EscEnvironment, type EscValue } from '../../shared/esc/index.js';
import type { EnvironmentsBackend } from '../backend/environments-backend.js';
import type { StackConfig } from '../engine/config/program-config.js';
import { UserError } from '../output/errors.js';
import { programText } from './config-values.js';

/** What a stack's environments give its run. */
export interface StackEnvironment {
  /** Configuration from `pulumiConfig`, keyed `namespace:key`, to be merged under the stack's own. */
  config: StackConfig;
  /** Environment variables from `environmentVariables`, for the program and its providers. */
  variables: Record<string, string>;
  /** The names of the variables whose values are secret. */
  secretVariables: string[];
  /** Temporary files from `files`: the variable to set to each file's path, and the file's content. */
  files: Record<string, string>;
  /** The merged environment itself, for projections such as `config`'s `ENVIRONMENT VARIABLE` table. */
  environment: EscEnvironment;
  /** What a check (not an open) reported: `config` prints them under `Environment diagnostics:`, as Pulumi does. */
  diagnostics?: Diagnostic[];
}

/** `[project/]env[@version]` in the stack's organization; an environment without a project is in project `default`, as in ESC. */
export function parseStackEnvironment(text: string, org: string, file: string): { ref: EnvironmentRef; version?: string } {
  const at = text.indexOf('@');
  const path = at < 0 ? text : text.slice(0, at);
  const version = at < 0 ? undefined : text.slice(at + 1);
  const parts = path.split('/');
  if (parts.length > 2 || parts.some((part) => part === '') || version === '') {
    throw new UserError(`${file}: \`environment\`: '${text}' is not an environment name`, 'Name an environment as `env` or `project/env` (optionally `@version`).');
  }
  const [project, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['default', parts[0]!];
  return { ref: { org, project, name }, ...(version !== undefined ? { version } : {}) };
}

/** ESC's merge of imports: objects merge key by key, anything else is replaced by the later value. */
function merge(base: EscValue | undefined, over: EscValue): EscValue {
  const a = base?.value;
  const b = over.value;
  const isObject = (v: unknown): v is Record<string, EscValue> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!base || !isObject(a) || !isObject(b) || over.secret || base.secret) return over;
  const merged: Record<string, EscValue> = { ...a };
  for (const [key, value] of Object.entries(b)) merged[key] = merge(a[key], value);
  return { value: merged };
}

function hasSecret(value: EscValue): boolean {
  if (value.secret) return true;
  const inner = value.value;
  if (inner === null || typeof inner !== 'object') return false;
  return (Array.isArray(inner) ? inner : Object.values(inner)).some(hasSecret);
}

/** Opens the named environments in order and returns their merged configuration and environment variables. */
export async function openStackEnvironments(
  backend: EnvironmentsBackend,
  names: string[],
  context: { org: string; project: string; file: string },
): Promise<StackEnvironment> {
  let properties: EscValue | undefined;
  for (const text of names) {
    const { ref, version } = parseStackEnvironment(text, context.org, context.file);
    const opened: EscEnvironment = await backend.open(ref, version).catch((error: unknown) => {
      throw new UserError(
        `${context.file}: \`environment\`: cannot open environment '${formatEnvironmentRef(ref)}': ${(error as Error).message}`,
        'Check the name (`stackyard env ls`) and that you may open it.',
      );
    });
    properties = merge(properties, { value: opened.properties ?? {} });
  }
  return stackEnvironmentOf({ properties: (properties?.value ?? {}) as Record<string, EscValue> } as EscEnvironment, context.project);
}

/**
 * Checks the named environments without opening them, as `pulumi config` does without `--open` (it checks the
 * definition `imports: [<names>]`): values that only an open knows are unknown, secrets stay hidden.
 */
export async function checkStackEnvironments(
  backend: EnvironmentsBackend,
  names: string[],
  context: { org: string; project: string; file: string },
): Promise<StackEnvironment | undefined> {
  for (const text of names) parseStackEnvironment(text, context.org, context.file);
  const yaml = `imports:\n${names.map((name) => `  - ${JSON.stringify(name)}\n`).join('')}`;
  const checked = await backend.checkYaml(context.org, yaml, false);
  if (!checked.environment) return undefined;
  return { ...stackEnvironmentOf(checked.environment, context.project), diagnostics: checked.diagnostics };
}

/** What the program gets from a merged environment: its config under the project's namespace, variables and files. */
function stackEnvironmentOf(merged: EscEnvironment, project: string): StackEnvironment {
  const config: StackConfig = {};
  for (const [key, value] of Object.entries(pulumiConfig(merged))) {
    const { text, object } = programText(toJSON(value, false));
    config[key.includes(':') ? key : `${project}:${key}`] = { value: text, secret: hasSecret(value), ...(object ? { object } : {}) };
  }
  const exported = Object.entries(environmentVariables(merged));
  const variables = Object.fromEntries(exported.map(([name, value]) => [name, String(value.value)]));
  const wanted = Object.entries(files(merged)).map(([name, value]) => [name, String(value.value)]);
  return {
    config,
    variables,
    secretVariables: exported.filter(([, value]) => value.secret).map(([name]) => name),
    files: Object.fromEntries(wanted),
    environment: merged,
  };
}
