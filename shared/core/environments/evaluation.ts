import { escValue, type EscValue, type EvalOptions, type LoadedImport } from '../../esc/index.js';
import { NotFoundError, PermissionDeniedError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, type EnvironmentRef } from '../names.js';
import type { EnvironmentRecord } from '../../ports/environment-store.js';
import { environmentCrypt, readDefinition, type EnvironmentCrypt } from './definitions.js';
import { loadEnvironment } from './environment-access.js';
import { environmentProviders } from './providers/index.js';
import { resolveRevision } from './revisions.js';

/** The project of an import or reference written without one (`imports: [dev]`), as ESC resolves it. */
export const DEFAULT_PROJECT = 'default';

/** How deep an evaluation goes: checking reads imports (`read`), opening evaluates them (`open`). */
export type EvaluationMode = 'check' | 'open';

/** An environment's name as the evaluator and its diagnostics spell it: `<project>/<name>`. */
export function evaluationName(ref: EnvironmentRef): string {
  return `${ref.project}/${ref.name}`;
}

/** The environment an import names (`name`, `project/name`, each optionally `@version`), in `org`. */
export function importRef(org: string, text: string): { ref: EnvironmentRef; version?: string } | undefined {
  const at = text.indexOf('@');
  const path = at === -1 ? text : text.slice(0, at);
  const version = at === -1 ? undefined : text.slice(at + 1);
  const parts = path.split('/');
  if (parts.length === 1) return { ref: { org, project: DEFAULT_PROJECT, name: parts[0]! }, version };
  if (parts.length === 2) return { ref: { org, project: parts[0]!, name: parts[1]! }, version };
  return undefined;
}

/** The stored definition of one revision. */
export async function definitionAt(deps: ServiceDeps, environment: EnvironmentRecord, revision: number): Promise<string> {
  const record = await deps.storage.environments.getRevision(environment.id, revision);
  return readDefinition(deps, environment.id, record.definition);
}

/**
 * The evaluator's callbacks for one caller: imports of the caller's organization, each read with the caller's own
 * permission (an environment it may not read is not found; one it may read but not open, when opening, is an error
 * naming the permission) and decrypted under its own data key; the providers of docs/environments.md ("Providers"),
 * whose inputs are checked against their schemas when checking and which are opened only when opening.
 */
export function evaluationOptions(
  deps: ServiceDeps,
  principal: Principal,
  org: string,
  mode: EvaluationMode,
  crypt: EnvironmentCrypt | undefined,
): EvalOptions {
  return {
    loadImport: (name) => loadImport(deps, principal, org, mode, name),
    ...(crypt ? { decrypt: crypt.decrypt } : {}),
    providers: environmentProviders(deps, org),
    context: executionContext(principal, org),
  };
}

async function loadImport(deps: ServiceDeps, principal: Principal, org: string, mode: EvaluationMode, name: string): Promise<LoadedImport | undefined> {
  const target = importRef(org, name);
  if (!target) return undefined;
  let environment: EnvironmentRecord;
  try {
    environment = await loadEnvironment(deps, principal, target.ref, mode === 'open' ? 'open' : 'read');
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    if (error instanceof PermissionDeniedError) {
      throw new Error(`'${principal.login}' may not open environment '${formatEnvironmentRef(target.ref)}' (it takes 'open')`);
    }
    throw error;
  }
  const revision = await resolveRevision(deps, environment, target.version);
  const crypt = await environmentCrypt(deps, environment);
  return { yaml: await definitionAt(deps, environment, revision), decrypt: crypt.decrypt };
}

/** `${context.pulumi.user.login}` and `${context.pulumi.organization.login}`, as ESC's service gives them. */
function executionContext(principal: Principal, org: string): Record<string, EscValue> {
  return { pulumi: escValue({ user: { login: principal.login }, organization: { login: org } }) };
}
