/** Pulumi Deployments' operations (apitype.PulumiOperation). */
export type DeploymentOperation = 'preview' | 'update' | 'refresh' | 'destroy' | 'detect-drift' | 'remediate-drift';

/** Pulumi Cloud's deployment statuses: queued, picked up by a runner, executing, and the three terminal ones. */
export type DeploymentRunStatus = 'not-started' | 'accepted' | 'running' | 'succeeded' | 'failed' | 'skipped';

/** A stack's deployment settings, as Pulumi's `DeploymentSettings` JSON with every secret value sealed (`ciphertext`). */
export interface DeploymentSettingsRecord {
  stackId: string;
  /** The settings document; a secret is only ever `{ "ciphertext": … }` here. */
  settings: Record<string, unknown>;
  /** 1 on create, +1 on every write: the condition of the next write. */
  version: number;
  modifiedAt: number;
  modifiedBy: string;
}

/** One update a run started, as Pulumi's `DeploymentNestedUpdate` names it. */
export interface DeploymentRunUpdate {
  updateId: string;
  version: number;
}

/** A queued or finished run of a stack (a "deployment" in Pulumi Cloud's words). */
export interface DeploymentRun {
  /** Random, unique across stacks. */
  id: string;
  stackId: string;
  org: string;
  /** The stack's project and name when the run was queued (for runners and listings; the id is what counts). */
  project: string;
  stack: string;
  /** 1, 2, 3… per stack, in the order runs were queued. */
  version: number;
  operation: DeploymentOperation;
  status: DeploymentRunStatus;
  /** Login of who queued it. */
  requestedBy: string;
  /** `X-Pulumi-Deployment-Initiator` (`pulumi-cli`, `stackyard-cli`, `api`…). */
  initiator: string;
  /** The settings the run uses: the stack's merged with the request's own, secrets sealed. */
  settings: Record<string, unknown>;
  created: number;
  modified: number;
  /** +1 on every write; the condition of the next. */
  revision: number;
  /** The runner holding the run and until when (epoch ms); another may claim it once that passes. */
  claimedBy?: string;
  claimedUntil?: number;
  /** Set by a cancel while the run is accepted or running: the runner stops and records `failed`. */
  cancelRequested?: boolean;
  /** Why a failed run failed, in a sentence (clone failed, install failed, update failed, cancelled…). */
  failure?: string;
  /**
   * The ESC environments (`org/project/name`) the stack's `Pulumi.<stack>.yaml` imports, as the run's runner read
   * them right after the clone; set once. The run's token may `open` these and no other (environment-access.ts).
   */
  environments?: string[];
  updates: DeploymentRunUpdate[];
  /** The pull (merge) request whose push webhook queued this `preview`: where its result may be posted back. */
  pullRequest?: RunPullRequest;
  /** What became of posting the result back to the git host (only when the settings ask for it). */
  resultPost?: RunResultPost;
}

/** A pull request on GitHub, or a merge request (by its `iid`) on GitLab, at the commit the run previews. */
export interface RunPullRequest {
  provider: 'github' | 'gitlab';
  number: number;
  commit: string;
}

/** A result posted back (`posted`), refused or unreachable (`failed`), or not attempted and why (`skipped`). */
export interface RunResultPost {
  status: 'posted' | 'failed' | 'skipped';
  /** What was posted where, or why not, in a sentence (never a token). */
  detail: string;
  /** Epoch ms. */
  at: number;
}

/** A run a runner holds: claimed (`accepted` or `running`) and not yet finished. */
export function isClaimedRun(run: Pick<DeploymentRun, 'status'>): boolean {
  return run.status === 'accepted' || run.status === 'running';
}

/** A line of a run's log, as Pulumi's `DeploymentLogLine`. */
export interface DeploymentLogLine {
  /** Epoch ms. */
  timestamp: number;
  line: string;
}

/**
 * Deployment settings, runs, the run queue and run logs (items of the Stackyard table in AWS, lock-protected files
 * locally). Design: docs/deployments.md.
 *
 * Guarantees:
 * - `putSettings` is a conditional write on the version the caller read (`undefined`: none stored yet); a lost race
 *   is `ConflictError` and changes nothing. `deleteSettings` of missing settings is no error.
 * - `createRun` is create-if-absent by (stack, version): two runs queued at once cannot both take one version; the
 *   loser gets `ConflictError` and retries with the next.
 * - A run in `not-started` is in the queue. `claimNext` hands it to exactly one runner (a conditional write on its
 *   status and revision), oldest first across stacks, skipping stacks that already have a live (claimed, unexpired)
 *   run: of any number of runners claiming at once, each run goes to one of them, and of two runs of one stack at
 *   most one is claimed until the other ends (or its claim passes), so a stack's runs run one after another.
 * - A claimed run (`accepted` or `running`) whose `claimedUntil` has passed lost its runner: `claimLost` hands it to
 *   exactly one other runner, by the same conditional write on its revision, so it is recovered once.
 * - `updateRun` applies only at the revision the caller read; otherwise `ConflictError` and nothing changes.
 * - Log lines are appended in order; `readLog` returns them from an offset.
 * - `recordDelivery` is create-if-absent-or-expired on (stack, delivery id): of any number of callers recording one
 *   delivery at once exactly one gets `true`, and until `expiresAt` every later one gets `false` (push webhooks'
 *   replay guard). Expiry is checked in the write's condition; DynamoDB's TTL sweep only cleans up.
 */
export interface DeploymentStore {
  getSettings(stackId: string): Promise<DeploymentSettingsRecord | undefined>;
  putSettings(record: DeploymentSettingsRecord, expectedVersion: number | undefined): Promise<void>;
  deleteSettings(stackId: string): Promise<void>;

  createRun(run: DeploymentRun): Promise<void>;
  /** `undefined` when the stack has no run with that id. */
  getRun(stackId: string, id: string): Promise<DeploymentRun | undefined>;
  /** A stack's runs, newest first. */
  listRuns(stackId: string, limit: number): Promise<DeploymentRun[]>;
  updateRun(run: DeploymentRun, expectedRevision: number): Promise<DeploymentRun>;
  /** The oldest queued run whose stack has no live run, now `accepted` and claimed by `runner` until `claimedUntil`. */
  claimNext(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined>;
  /** A claimed run whose claim expired before `now`, now claimed by `runner` until `claimedUntil` (status unchanged). */
  claimLost(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined>;

  /** `true` when this delivery id of the stack was not recorded yet (or its record expired), now recorded until `expiresAt`. */
  recordDelivery(stackId: string, deliveryId: string, now: number, expiresAt: number): Promise<boolean>;

  appendLog(runId: string, lines: readonly DeploymentLogLine[]): Promise<void>;
  /** Lines from `offset` (0-based), at most `count`. */
  readLog(runId: string, offset: number, count: number): Promise<DeploymentLogLine[]>;
}
