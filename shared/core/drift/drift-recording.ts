import type { DriftRunRecord } from '../../ports/drift-store.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { driftEvent } from '../hooks/payloads.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { driftedResources } from './drifted-resources.js';

/** True for the updates that are drift runs: every preview of a refresh, as in Pulumi Cloud. */
export function isDriftDetection(update: Pick<UpdateRecord, 'kind' | 'dryRun'>): boolean {
  return update.kind === 'refresh' && update.dryRun;
}

/**
 * Records the drift run of a preview of a refresh that ends with `status`, from the engine events it sent (naming the
 * deployment run that made it, when one did), and
 * returns the `drift_detected` event to raise with the write that ends it (none when nothing drifted). Recording
 * is idempotent (the run's id is the update's), so a retried completion records nothing new.
 */
export async function recordDriftRun(
  deps: ServiceDeps,
  stack: Pick<StackRecord, 'id' | 'org' | 'project' | 'stack'>,
  update: UpdateRecord,
  status: DriftRunRecord['status'],
  events: readonly unknown[],
  resourceChanges: Record<string, number>,
  deployment?: { id: string; version: number },
): Promise<OutboxEvent[]> {
  const resources = driftedResources(events);
  const run: DriftRunRecord = {
    id: update.id,
    stackId: stack.id,
    org: stack.org,
    created: update.startedAt ?? update.createdAt,
    modified: deps.now(),
    status,
    driftDetected: resources.length > 0,
    resourceChanges,
    resources,
    requestedBy: update.requestedBy,
    ...(deployment ? { deploymentId: deployment.id, deploymentVersion: deployment.version } : {}),
  };
  await deps.storage.drift.recordRun(run);
  if (!run.driftDetected || status !== 'succeeded') return [];
  return [driftEvent(stack, update, { driftRunId: run.id, resources }, deps.now(), deps.options.serviceUrl)];
}
