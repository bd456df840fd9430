import type { DriftedResource, DriftRemediation, DriftRunRecord } from '../../ports/drift-store.js';

/** Pulumi's `DriftRunUpdate`: the detect (or remediate) phase of a drift run. */
export interface DriftRunUpdateView {
  updateId: string;
  resourceChanges?: Record<string, number>;
  modified: string;
  status: string;
}

/** Pulumi's `DriftRun`, plus Stackyard's `resources`: which resources drifted and which of their properties. */
export interface DriftRunView {
  id: string;
  driftDetected: boolean;
  created: string;
  status: string;
  deploymentId?: string;
  deploymentVersion?: number;
  detectUpdate: DriftRunUpdateView;
  /** The update that remediated the drift, when the run asked for remediation and drift was found. */
  remediateUpdate?: DriftRunUpdateView;
  resources: DriftedResource[];
}

/** Pulumi's `StackDriftStatus`. */
export interface DriftStatusView {
  driftDetected: boolean;
  /** The id of the newest drift run ('' when there is none). */
  latestDriftRun: string;
  /** A `detect-drift` deployment of the stack is queued or running. */
  runInProgress: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

function remediationView(remediation: DriftRemediation): DriftRunUpdateView {
  const changes = Object.keys(remediation.resourceChanges).length > 0 ? { resourceChanges: remediation.resourceChanges } : {};
  return { updateId: remediation.updateId, ...changes, modified: iso(remediation.modified), status: remediation.status };
}

/** The view of one drift run. */
export function driftRunView(run: DriftRunRecord): DriftRunView {
  const changes = Object.keys(run.resourceChanges).length > 0 ? { resourceChanges: run.resourceChanges } : {};
  return {
    id: run.id,
    driftDetected: run.driftDetected,
    created: iso(run.created),
    status: run.status,
    ...(run.deploymentId ? { deploymentId: run.deploymentId } : {}),
    ...(run.deploymentVersion ? { deploymentVersion: run.deploymentVersion } : {}),
    detectUpdate: { updateId: run.id, ...changes, modified: iso(run.modified), status: run.status },
    ...(run.remediateUpdate ? { remediateUpdate: remediationView(run.remediateUpdate) } : {}),
    resources: run.resources,
  };
}
