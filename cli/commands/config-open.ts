/**
 * `config --open` and `config get --open`: the configuration the program would see, with the values of the stack's
 * ESC environments (`environment:`) under the stack's own, as `pulumi config` shows it (pkg/cmd/pulumi/config/config.go):
 * each environment is opened on the backend, secrets stay `[secret]` unless `--show-secrets`, and the list adds an
 * `ENVIRONMENT VARIABLE` table.
 */
import type { StackConfig } from '../engine/config/program-config.js';
import { checkStackEnvironments, openStackEnvironments, type StackEnvironment } from '../project/stack-environments.js';
import { prepareEnvironment } from '../environments/render.js';
import { temporaryFile } from '../environments/temporary-files.js';
import type { StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { table } from './format.js';
import type { Diagnostic } from '../../shared/esc/index.js';

/** What opening a stack's environments needs (a `config` command's target). */
interface OpenTarget {
  backend: Backend;
  ref: StackRef;
  project: { name: string };
  file: { environments(): string[] };
  fileName: string;
}

/**
 * The stack's environments, opened (`open`) or only checked as `pulumi config` does without `--open`; undefined when
 * it lists none.
 */
export async function openTargetEnvironments(target: OpenTarget, open = true): Promise<StackEnvironment | undefined> {
  const names = target.file.environments();
  if (names.length === 0) return undefined;
  const context = { org: target.ref.org, project: target.project.name, file: target.fileName };
  const environments = target.backend.environments();
  return open ? openStackEnvironments(environments, names, context) : checkStackEnvironments(environments, names, context);
}

/** The environments' configuration keys the stack does not set itself (the stack's values win). */
export function environmentOnly(opened: StackEnvironment, stackKeys: Set<string>): StackConfig {
  return Object.fromEntries(Object.entries(opened.config).filter(([key]) => !stackKeys.has(key)));
}

/** The value as `config` shows it: `[secret]` unless secrets are shown. */
export function shownValue(value: StackConfig[string], showSecrets: boolean): string {
  return value.secret && !showSecrets ? '[secret]' : value.value;
}

/**
 * What `pulumi config` prints after the configuration (ESC's PrepareEnvironment): the `ENVIRONMENT VARIABLE` table,
 * variables then files, each sorted; an opened environment's files are written to temporary files that are left in
 * place, as Pulumi leaves them, a checked one's paths are `[unknown]`. Then Pulumi's warning (on stdout) when the environments
 * define none of `environmentVariables`, `files` and `pulumiConfig`.
 */
export async function environmentVariablesTable(opened: StackEnvironment, showSecrets: boolean, open: boolean): Promise<string> {
  const { environ } = await prepareEnvironment(opened.environment, { quote: false, redact: !showSecrets, ...(open ? { writeFile: temporaryFile } : {}) });
  const rows = environ.map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
  let text = rows.length === 0 ? '' : `\n\n${table(['ENVIRONMENT VARIABLE', 'VALUE'], rows)}`;
  const diagnostics = opened.diagnostics ?? [];
  if (diagnostics.length > 0) {
    const where = (d: Diagnostic) => (d.range ? `${d.range.environment}:${d.range.begin.line !== 0 ? `${d.range.begin.line}:${d.range.begin.column}:` : ''} ` : '');
    text += `\n\nEnvironment diagnostics:\n${diagnostics.map((d) => `${where(d)}${d.summary}`).join('\n')}`;
  }
  const properties = opened.environment.properties ?? {};
  const config = properties.pulumiConfig?.value;
  const hasConfig = config !== null && typeof config === 'object' && !Array.isArray(config);
  if (rows.length === 0 && !hasConfig) {
    text +=
      "\nThe stack's environment does not define the `environmentVariables`, `files`, or `pulumiConfig` properties.\n" +
      "Without at least one of these properties, the environment will not affect the stack's behavior.\n\n";
  }
  return text;
}
