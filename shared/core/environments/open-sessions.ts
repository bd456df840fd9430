import { randomBytes } from 'node:crypto';
import { evalEnvironment, hasErrors, parsePath, type EscEnvironment, type EscValue } from '../../esc/index.js';
import { audited } from '../audit/audit.js';
import { DiagnosticsError, InvalidInputError, NotFoundError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, type EnvironmentRef } from '../names.js';
import type { EnvironmentRecord } from '../../ports/environment-store.js';
import { environmentCrypt } from './definitions.js';
import { loadEnvironment } from './environment-access.js';
import { definitionAt, evaluationName, evaluationOptions } from './evaluation.js';
import { resolveRevision } from './revisions.js';
import type { EnvironmentVersion } from './types.js';

/** ESC's default lifetime of an opened environment. */
export const DEFAULT_OPEN_MS = 60 * 60 * 1000;
/** Opened environments are short-lived: a day at most (the esc CLI asks for 2 hours by default). */
export const MAX_OPEN_MS = 24 * 60 * 60 * 1000;

/** Evaluates one revision for a caller who may open it; errors refuse the open with every diagnostic. */
async function evaluate(deps: ServiceDeps, principal: Principal, environment: EnvironmentRecord, revision: number): Promise<EscEnvironment> {
  const crypt = await environmentCrypt(deps, environment);
  const yaml = await definitionAt(deps, environment, revision);
  const { environment: evaluated, diagnostics } = await evalEnvironment(
    evaluationName(environment),
    yaml,
    evaluationOptions(deps, principal, environment.org, 'open', crypt, true),
  );
  if (hasErrors(diagnostics)) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0]?.summary ?? 'it has errors';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length === 2 ? '' : 's'})` : '';
    throw new DiagnosticsError(`Environment '${formatEnvironmentRef(environment)}' could not be opened: ${first}${more}`, diagnostics);
  }
  // ESC evaluates a definition with no imports and no values to nothing, and opening it gives no values.
  return evaluated ?? emptyEnvironment();
}

/** What opening a definition with no imports and no values gives, as ESC answers it. */
export function emptyEnvironment(): EscEnvironment {
  return { exprs: {}, properties: {}, schema: { type: 'object' }, executionContext: { properties: {}, schema: { type: 'object' } } };
}

/** Refuses an open duration outside (0, 24h]. */
export function requireOpenDuration(durationMs: number): void {
  if (!Number.isSafeInteger(durationMs) || durationMs <= 0 || durationMs > MAX_OPEN_MS) {
    throw new InvalidInputError('The open duration must be more than 0 and at most 24h (e.g. 2h, 1h30m, 15m).');
  }
}

/** One property of an opened environment, by a Pulumi property path (`a.b[0]["c d"]`). */
function propertyAt(environment: EscEnvironment, path: string): EscValue {
  let current: EscValue = { value: environment.properties };
  for (const part of parsePath(path)) {
    const value = current.value;
    const next =
      typeof part === 'number'
        ? Array.isArray(value) ? value[part] : undefined
        : value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, part) ? value[part] : undefined;
    if (next === undefined) throw new NotFoundError(`The opened environment has no property '${path.slice(0, 200)}'.`);
    current = next;
  }
  return current;
}

/**
 * Opening (`esc open`, `esc run`): `open` evaluates a revision, refusing one with errors, and records a session — who
 * opened which revision, until when — which `readOpen` reads it through. Sessions store no value: reading evaluates
 * the same revision again, for the same caller, who must still be allowed to open it, so no secret is ever stored.
 */
export function createOpenSessions(deps: ServiceDeps) {
  const store = deps.storage.environments;
  return {
    async open(principal: Principal, ref: EnvironmentRef, version: EnvironmentVersion, durationMs = DEFAULT_OPEN_MS): Promise<{ id: string }> {
      requireOpenDuration(durationMs);
      const environment = await loadEnvironment(deps, principal, ref, 'open');
      const revision = await resolveRevision(deps, environment, version);
      const name = formatEnvironmentRef(environment);
      const by = principal.token?.kind === 'deployment' ? ` for deployment ${principal.token.runId} (${principal.token.description})` : '';
      const description = `opened revision ${revision} of ${name}${by}`;
      return audited(deps, principal, { org: environment.org, event: 'environment.opened', target: name, revision, description }, async () => {
        await evaluate(deps, principal, environment, revision);
        const now = deps.now();
        const id = randomBytes(16).toString('hex');
        await store.createOpenSession({ id, environmentId: environment.id, revision, login: principal.login, createdAt: now, expiresAt: now + durationMs });
        return { id };
      });
    },

    async readOpen(principal: Principal, ref: EnvironmentRef, sessionId: string, property?: string): Promise<EscEnvironment | EscValue> {
      const environment = await loadEnvironment(deps, principal, ref, 'open');
      const session = await store.getOpenSession(sessionId);
      if (!session || session.environmentId !== environment.id || session.login !== principal.login) {
        throw new NotFoundError(`Open session '${String(sessionId).slice(0, 64)}' of '${formatEnvironmentRef(environment)}' not found or expired: open the environment again.`);
      }
      const evaluated = await evaluate(deps, principal, environment, session.revision);
      return property === undefined ? evaluated : propertyAt(evaluated, property);
    },
  };
}
