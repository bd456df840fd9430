/**
 * Updates started by a deployment run (docs/deployments.md): the service, not the runner, ties them to the run, so
 * the run lists its updates and each update's environment names its run, even when the runner dies mid-way.
 */
import { ConflictError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';

/** The update environment key naming the deployment run whose token created the update (shown in history). */
export const DEPLOYMENT_ID_KEY = 'stackyard.deployment.id';

/** The environment an update is created with: a run's token adds its run id, over whatever the client sent for it. */
export function stampRun(principal: Principal, environment: Record<string, string>): Record<string, string> {
  const runId = principal.token?.kind === 'deployment' ? principal.token.runId : undefined;
  return runId ? { ...environment, [DEPLOYMENT_ID_KEY]: runId } : environment;
}

/** Adds a started update to the run whose token started it (once; a concurrent write of the run is retried). */
export async function recordRunUpdate(deps: ServiceDeps, principal: Principal, stackId: string, updateId: string, version: number): Promise<void> {
  const runId = principal.token?.kind === 'deployment' ? principal.token.runId : undefined;
  if (!runId) return;
  for (;;) {
    const run = await deps.storage.deployments.getRun(stackId, runId);
    if (!run || run.updates.some((update) => update.updateId === updateId)) return;
    try {
      await deps.storage.deployments.updateRun(
        { ...run, updates: [...run.updates, { updateId, version }], modified: deps.now(), revision: run.revision + 1 },
        run.revision,
      );
      return;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
}
