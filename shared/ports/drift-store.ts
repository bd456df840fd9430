/** How a drifted resource differs from the state Stackyard holds: changed in place, or gone. */
export type DriftChange = 'update' | 'delete';

/** One resource a drift run found changed behind Pulumi's back, and the properties that changed. */
export interface DriftedResource {
  urn: string;
  type: string;
  change: DriftChange;
  /** Top-level property names whose value differs (empty for a resource that is gone). */
  properties: string[];
}

/** The update that remediated a drift run's drift (Pulumi's `remediateUpdate`): an `up --refresh` of the same run. */
export interface DriftRemediation {
  updateId: string;
  /** How the update ended: `succeeded`, `failed` or `cancelled` (`running` while it could not be read as ended). */
  status: string;
  resourceChanges: Record<string, number>;
  /** When it was recorded (epoch ms). */
  modified: number;
}

/**
 * A drift run: the result of one preview of a refresh (`refresh --preview-only` by a user, or a `detect-drift`
 * deployment), as Pulumi Cloud's `DriftRun` records it, plus which resources and properties drifted.
 */
export interface DriftRunRecord {
  /** The id of the refresh preview that detected it (one drift run per such update). */
  id: string;
  stackId: string;
  org: string;
  /** When the preview started (epoch ms): the run's place in the stack's list. */
  created: number;
  /** When it ended. */
  modified: number;
  /** How the preview ended: `succeeded`, `failed` or `cancelled`. */
  status: 'succeeded' | 'failed' | 'cancelled';
  driftDetected: boolean;
  /** The preview's summary of resource changes (`update`, `delete`, `same`…). */
  resourceChanges: Record<string, number>;
  resources: DriftedResource[];
  /** Login of who ran the preview. */
  requestedBy: string;
  /** The deployment run that started it, when a runner did. */
  deploymentId?: string;
  deploymentVersion?: number;
  /** The remediation of the drift, when the deployment asked for it (`remediateIfDriftDetected`) and drift was found. */
  remediateUpdate?: DriftRemediation;
}

/**
 * A stack's drift runs (items of the Stackyard table in AWS, lock-protected files locally). Design:
 * docs/deployments.md, "Drift".
 *
 * Guarantees:
 * - `recordRun` is create-if-absent by (stack, id): recording the same preview twice (a retried completion) keeps
 *   the first record and is no error.
 * - `listRuns` returns a stack's runs newest first (by `created`, then id), `skip` of them left out, with the total.
 * - `recordRemediation` sets the remediation of a recorded run (found by stack, `created` and id) and changes nothing
 *   else of it; a run not recorded is a `NotFoundError`. Only the runner holding the run's deployment writes it.
 */
export interface DriftStore {
  recordRun(run: DriftRunRecord): Promise<void>;
  recordRemediation(run: Pick<DriftRunRecord, 'stackId' | 'created' | 'id'>, remediation: DriftRemediation): Promise<void>;
  listRuns(stackId: string, page: { limit: number; skip: number }): Promise<{ runs: DriftRunRecord[]; total: number }>;
}
