import { escValue, type EscValue, type EvalOptions, type LoadedImport } from '../../esc/index.js';
import { NotFoundError, PermissionDeniedError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, validateEnvironmentRef, type EnvironmentRef } from '../names.js';
import type { EnvironmentRecord } from '../../ports/environment-store.js';
import { environmentCrypt, readDefinition, type EnvironmentCrypt } from './definitions.js';
import { loadEnvironment, requesterMayOpen } from './environment-access.js';
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
  /** The evaluation is of a stored environment the caller was allowed to open (not of a caller's own YAML). */
  openedRoot = false,
): EvalOptions {
  return {
    loadImport: (name) => loadImport(deps, principal, org, mode, name, openedRoot),
    ...(crypt ? { decrypt: crypt.decrypt } : {}),
    providers: environmentProviders(deps, org),
    context: executionContext(principal, org),
  };
}

async function loadImport(
  deps: ServiceDeps,
  principal: Principal,
  org: string,
  mode: EvaluationMode,
  name: string,
  openedRoot: boolean,
): Promise<LoadedImport | undefined> {
  const target = importRef(org, name);
  if (!target) return undefined;
  let environment: EnvironmentRecord;
  try {
    // A run's token opens what an environment its stack imports imports in turn, as part of that one, as far as
    // the run's user may open it (environment-access.ts): the token cannot name such imports itself.
    environment =
      openedRoot && principal.token?.kind === 'deployment'
        ? await importForRun(deps, principal, target.ref)
        : await loadEnvironment(deps, principal, target.ref, mode === 'open' ? 'open' : 'read');
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

/** An import reached from an environment a run's token opened: `PermissionDeniedError` unless its user may open it. */
async function importForRun(deps: ServiceDeps, principal: Principal, ref: EnvironmentRef): Promise<EnvironmentRecord> {
  const environment = await deps.storage.environments.get(validateEnvironmentRef(ref));
  if (!(await requesterMayOpen(deps, principal, environment))) {
    throw new PermissionDeniedError(`'${principal.login}' may not open '${formatEnvironmentRef(ref)}'`, ref.org, 'open environment');
  }
  return environment;
}

/** `${context.pulumi.user.login}` and `${context.pulumi.organization.login}`, as ESC's service gives them. */
function executionContext(principal: Principal, org: string): Record<string, EscValue> {
  return { pulumi: escValue({ user: { login: principal.login }, organization: { login: org } }) };
}
