/**
 * What a run does after its operation when its options ask for it (Pulumi's `OperationContextOptions`, set by drift
 * and TTL schedules; docs/deployments.md): a `detect-drift` run with `remediateIfDriftDetected` that found drift
 * remediates it with an `up --refresh`, recorded as its drift run's `remediateUpdate`; a `destroy` run with
 * `deleteAfterDestroy` removes the emptied stack.
 */
import { NotFoundError } from '../errors.js';
import type { DeploymentRun } from '../../ports/deployment-store.js';
import type { DriftRunRecord } from '../../ports/drift-store.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { removeStack } from '../stacks/stack-removal.js';
import { readSummary } from '../updates/update-records.js';

/** Drift runs looked at for a run's own: runs of a stack take turns, so its drift run is among the newest. */
const RECENT_DRIFT_RUNS = 20;

/** The drift run the `detect-drift` run `run` made (its refresh preview names the run), if it was recorded. */
export async function driftRunOf(deps: ServiceDeps, run: DeploymentRun): Promise<DriftRunRecord | undefined> {
  const { runs } = await deps.storage.drift.listRuns(run.stackId, { limit: RECENT_DRIFT_RUNS, skip: 0 });
  return runs.find((drift) => drift.deploymentId === run.id);
}

/**
 * Records the run's remediation on its drift run: the newest of the run's updates that is not a preview (the `up`
 * that followed the detection), with how it ended and its changes. Nothing when the run started no such update.
 */
export async function recordRemediation(deps: ServiceDeps, run: DeploymentRun): Promise<void> {
  const [latest, drift] = await Promise.all([deps.storage.deployments.getRun(run.stackId, run.id), driftRunOf(deps, run)]);
  if (!latest || !drift) return;
  for (const { updateId } of [...latest.updates].reverse()) {
    const update = await deps.storage.updates.get(run.stackId, updateId).catch(() => undefined);
    if (!update || update.dryRun) continue;
    const resourceChanges = (await readSummary(deps, run.stackId, updateId)) ?? {};
    await deps.storage.drift.recordRemediation(drift, { updateId, status: update.status, resourceChanges, modified: deps.now() });
    return;
  }
}

/**
 * Removes the stack a `destroy` run emptied, audited as the run (on behalf of who queued it). Refused, as `stack rm`
 * without `--force` is, while the stack still holds resources; a stack already gone is no error.
 */
export async function removeDestroyedStack(deps: ServiceDeps, run: DeploymentRun): Promise<void> {
  const stack = await deps.storage.stacks.getById(run.stackId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!stack) return;
  const actor = { login: `deployment:${run.id}` };
  await removeStack(deps, actor, stack, { force: false, why: `after destroying it (deployment ${run.version}, deleteAfterDestroy, requested by ${run.requestedBy})` });
}
