/**
 * `config --open` and `config get --open`: the configuration the program would see, with the values of the stack's
 * ESC environments (`environment:`) under the stack's own, as `pulumi config` shows it (pkg/cmd/pulumi/config/config.go):
 * each environment is opened on the backend, secrets stay `[secret]` unless `--show-secrets`, and the list adds an
 * `ENVIRONMENT VARIABLE` table.
 */
import type { StackConfig } from '../engine/config/program-config.js';
import { openStackEnvironments, type StackEnvironment } from '../project/stack-environments.js';
import type { StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { table } from './format.js';

/** What opening a stack's environments needs (a `config` command's target). */
interface OpenTarget {
  backend: Backend;
  ref: StackRef;
  project: { name: string };
  file: { environments(): string[] };
  fileName: string;
}

/** The opened environments of the stack, or undefined when it lists none. */
export async function openTargetEnvironments(target: OpenTarget): Promise<StackEnvironment | undefined> {
  const names = target.file.environments();
  if (names.length === 0) return undefined;
  return openStackEnvironments(target.backend.environments(), names, { org: target.ref.org, project: target.project.name, file: target.fileName });
}

/** The environments' configuration keys the stack does not set itself (the stack's values win). */
export function environmentOnly(opened: StackEnvironment, stackKeys: Set<string>): StackConfig {
  return Object.fromEntries(Object.entries(opened.config).filter(([key]) => !stackKeys.has(key)));
}

/** The value as `config` shows it: `[secret]` unless secrets are shown. */
export function shownValue(value: StackConfig[string], showSecrets: boolean): string {
  return value.secret && !showSecrets ? '[secret]' : value.value;
}

/** The `ENVIRONMENT VARIABLE` table `pulumi config` prints after the configuration (nothing when there are none). */
export function environmentVariablesTable(opened: StackEnvironment, showSecrets: boolean): string {
  const names = Object.keys(opened.variables).sort();
  if (names.length === 0) return '';
  const secret = new Set(opened.secretVariables);
  return `\n\n${table(['ENVIRONMENT VARIABLE', 'VALUE'], names.map((name) => [name, secret.has(name) && !showSecrets ? '[secret]' : opened.variables[name]!]))}`;
}
