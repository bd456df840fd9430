/** The notice a run queue carries: which run was queued (the run itself stays in the DeploymentStore). */
export interface RunNotice {
  runId: string;
  stackId: string;
  /** Its stack's run version, for humans reading the queue. */
  version: number;
}

/**
 * Where a queued deployment run is announced so that something starts a runner for it (on AWS an SQS queue read by
 * the Lambda that starts a CodeBuild build per run; `stackyard serve` needs none, its workers poll the store).
 *
 * Guarantees:
 * - `announce` returns once the notice is durably queued (SQS acknowledged it), or throws; a throw means nothing
 *   was queued, and the caller fails the run rather than leave it waiting for a runner that never comes.
 * - Delivery is at least once: a notice may arrive twice. The DeploymentStore stays the truth, and a runner takes a
 *   run only through its claim (one conditional write), so a repeated notice never runs a run twice.
 */
export interface RunQueue {
  announce(notice: RunNotice): Promise<void>;
}
