/**
 * The values `new` asks for, as Pulumi's ui.PromptForValue asks them: `Label (default): `, Enter takes the default,
 * an invalid answer is said and asked again; with `--yes` the default is taken and must be valid. And the template's
 * config values, in key order, each under its description (pkg/cmd/pulumi/project/newcmd/config.go).
 */
import { UserError } from '../output/errors.js';
import { parseConfigKey, typedPathValue, type ConfigKey } from '../project/stack-config.js';
import type { TemplateConfigValue } from './project-template.js';

/** Reads one line from the terminal (hidden for secrets); supplied by the command's context. */
export type ReadLine = (label: string, secret: boolean) => Promise<string>;

/** Asks for a value (or takes `defaultValue` with `yes`); `validate` returns what is wrong, if anything. */
export async function promptForValue(
  read: ReadLine,
  yes: boolean,
  label: string,
  defaultValue: string,
  secret: boolean,
  validate?: (value: string) => string | undefined,
): Promise<string> {
  for (;;) {
    let value = defaultValue;
    if (!yes) {
      const shown = defaultValue === '' ? label : `${label} (${secret ? '[secret]' : defaultValue})`;
      value = (await read(shown, secret)).trim() || defaultValue;
    }
    const problem = validate?.(value);
    if (problem === undefined) return value;
    const message = `Sorry, '${value}' is not a valid ${label}: ${problem}`;
    if (yes) throw new UserError(message);
    process.stdout.write(`${message}\n`);
  }
}

/** A project name Pulumi accepts (its tokens rule, and not `pulumi` or `pulumi.*`, which collide with SDKs). */
export function projectNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name) || name === '.' || name === '..') return 'a project name may only contain alphanumeric, hyphens, underscores, and periods';
  if (name.toLowerCase() === 'pulumi' || name.toLowerCase().startsWith('pulumi.')) {
    return 'project name must not be `Pulumi` and must not start with the prefix `Pulumi.` to avoid collision with standard libraries';
  }
  return undefined;
}

/** Pulumi's default project name: the folder's name, else it without invalid characters, else `project`. */
export function defaultProjectName(folder: string): string {
  if (!projectNameProblem(folder)) return folder;
  const stripped = folder.replace(/[^a-zA-Z0-9_.-]/g, '');
  return projectNameProblem(stripped) ? 'project' : stripped;
}

/** One config value to save: plain data, or a plaintext to encrypt. */
export interface NewConfigValue {
  key: ConfigKey;
  value?: unknown;
  secret?: string;
}

/** `-c key=value` (repeatable; `--config-path` reads keys as paths): the values that win over the template's. */
export function commandLineConfig(pairs: string[], project: string, usePath: boolean): NewConfigValue[] {
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    const key = parseConfigKey(at < 0 ? pair : pair.slice(0, at), project, usePath);
    const text = at < 0 ? '' : pair.slice(at + 1);
    return { key, value: key.path.length > 0 ? typedPathValue(text) : text };
  });
}

const prettyKey = (key: string, project: string) => (key.startsWith(`${project}:`) ? key.slice(project.length + 1) : key);

/**
 * The template's config keys in Pulumi's order (namespace, then name), each asked with its description and default
 * (a `-c` value is not asked); empty answers are left out. Returns the `-c` values and the answers.
 */
export async function askTemplateConfig(
  read: ReadLine,
  yes: boolean,
  project: string,
  template: Record<string, TemplateConfigValue>,
  flags: NewConfigValue[],
): Promise<NewConfigValue[]> {
  const fromFlags = new Set(flags.map((f) => f.key.key));
  const keys = Object.keys(template)
    .map((name) => ({ name, key: parseConfigKey(name, project, false).key }))
    .sort((a, b) => {
      const [an, ...ar] = a.key.split(':');
      const [bn, ...br] = b.key.split(':');
      return an! < bn! ? -1 : an! > bn! ? 1 : ar.join(':') < br.join(':') ? -1 : ar.join(':') > br.join(':') ? 1 : 0;
    });
  const answers: NewConfigValue[] = [];
  for (const { name, key } of keys) {
    if (fromFlags.has(key)) continue;
    const spec = template[name]!;
    const label = spec.description ? `${spec.description} (${prettyKey(key, project)})` : prettyKey(key, project);
    const value = await promptForValue(read, yes, label, spec.default ?? '', spec.secret);
    if (value === '') continue;
    answers.push(spec.secret ? { key: { key, path: [] }, secret: value } : { key: { key, path: [] }, value });
  }
  return [...flags, ...answers];
}
