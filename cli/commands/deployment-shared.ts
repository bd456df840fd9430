/** What the `deployment` commands share: `NAME=value` flags and finding a run by its id or per-stack version. */
import type { DeploymentRunView } from '../../shared/core/deployments/views.js';
import type { StackRef } from '../../shared/core/names.js';
import type { DeploymentsBackend } from '../backend/deployments-backend.js';
import { UserError } from '../output/errors.js';

/** `--env NAME=value` (and `--env-secret`), as Pulumi's `parseEnv`. */
export function parseEnv(input: string): [string, string] {
  const equals = input.indexOf('=');
  if (equals < 0) throw new UserError(`expected value of the form "NAME=value": missing "=" in "${input}"`);
  const name = input.slice(0, equals);
  if (name === '') throw new UserError(`expected non-empty environment name in "${input}"`);
  return [name, input.slice(equals + 1)];
}

/** Plain values as strings, secret ones as `{ "secret": … }` (Pulumi's `SecretValue` on the wire). */
export function environmentVariables(plain: readonly string[], secret: readonly string[]): Record<string, unknown> | undefined {
  if (plain.length === 0 && secret.length === 0) return undefined;
  const variables: Record<string, unknown> = {};
  for (const entry of plain) {
    const [name, value] = parseEnv(entry);
    variables[name] = value;
  }
  for (const entry of secret) {
    const [name, value] = parseEnv(entry);
    variables[name] = { secret: value };
  }
  return variables;
}

/** A list flag's values (commander collects repeatable flags into an array). */
export function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
}

/** A run by its UUID, or by its per-stack version (`9410` or `#9410`), as Pulumi's `deployment log` takes it. */
export async function findRun(deployments: DeploymentsBackend, ref: StackRef, given: string): Promise<DeploymentRunView> {
  const version = /^#?([0-9]+)$/.exec(given)?.[1];
  if (version === undefined) return deployments.get(ref, given);
  const found = (await deployments.list(ref)).find((run) => run.version === Number(version));
  if (!found) throw new UserError(`resolving deployment version ${version}: no deployment ${version} of this stack`, 'List them with `stackyard deployment ls`.');
  return found;
}
