import type { OutboxEvent } from './hook-store.js';

/** Kinds of operation, as the Pulumi service names them in history. */
export type UpdateKind = 'update' | 'preview' | 'refresh' | 'destroy' | 'import' | 'rename' | 'resource-import';

export type UpdateStatus = 'not-started' | 'in-progress' | 'succeeded' | 'failed' | 'cancelled';

export interface UpdateRecord {
  id: string;
  stackId: string;
  kind: UpdateKind;
  /** Previews and `dryRun` updates: no exclusive lease, no version bump, not in history. */
  dryRun: boolean;
  status: UpdateStatus;
  /** Login of the user who created it. */
  requestedBy: string;
  /** Epoch milliseconds. */
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  /** The stack version this update produces (non-dry-run), or the unchanged version (dry run). */
  version?: number;
  message?: string;
  environment: Record<string, string>;
  /** The config sent with the update (secret values stay encrypted). */
  config: Record<string, unknown>;
  resourceChanges?: Record<string, number>;
  resourceCount?: number;
  /** Number of checkpoints saved so far; names the next checkpoint object. */
  checkpointCount: number;
  /**
   * Name (in the checkpoint store) of the state the update ended with, set when it ends. In history it is the
   * deployment of `version`; absent when the stack had no state at all.
   */
  checkpoint?: string;
  /** Login of the user who cancelled it (`status: cancelled` by `cancel`; absent when its own client stopped it). */
  cancelledBy?: string;
  /**
   * Why it ended when its own client did not end it: `lease-expired` when it was abandoned (the client crashed or
   * was killed, its lease ran out, and the service folded it as failed).
   */
  endReason?: UpdateEndReason;
  /** Why the service ended it as it did, in words for history (`policy-bypassed`: the packs missing or violated). */
  endMessage?: string;
  /**
   * The policy pack versions the stack's groups required when the update was created (the create-update answer's
   * `requiredPolicies`), which its events must show as run (docs/policy.md, "What the service checks").
   */
  requiredPolicies?: RequiredPackRef[];
  /** SHA-256 hex of the token that completed the update, so a retried `complete` with that token is answered OK. */
  completedTokenHash?: string;
  /** Optimistic-concurrency counter: every successful write bumps it by one. */
  revision: number;
}

/**
 * Why an update ended other than as its client's `complete` or a user's `cancel` said: `lease-expired` (abandoned),
 * `policy-bypassed` (completed as succeeded without the runs of its required policy packs, or past a mandatory violation).
 */
export type UpdateEndReason = 'lease-expired' | 'policy-bypassed';

/** A required policy pack version, as an update records it. */
export interface RequiredPackRef {
  name: string;
  versionTag: string;
}

export type NewUpdate = Omit<UpdateRecord, 'revision' | 'checkpointCount'>;

export type UpdateChanges = Partial<
  Pick<
    UpdateRecord,
    | 'status'
    | 'startedAt'
    | 'endedAt'
    | 'version'
    | 'resourceChanges'
    | 'resourceCount'
    | 'checkpointCount'
    | 'checkpoint'
    | 'completedTokenHash'
    | 'cancelledBy'
    | 'endReason'
    | 'endMessage'
  >
>;

export interface HistoryPage {
  /** Completed, non-dry-run operations, newest (highest version) first. */
  updates: UpdateRecord[];
}

/**
 * Update records and the stack's history.
 *
 * Guarantees:
 * - `create` fails with `ConflictError` if the id exists.
 * - `update` applies only when `revision` equals `expectedRevision` (else `ConflictError`, nothing changed).
 * - `recordHistory` is idempotent per (stack, version): recording the same version twice keeps the first entry.
 * - Missing updates fail with `NotFoundError`.
 * - `update` writes `events` (hook outbox events) in the same atomic write as the change, or none of them.
 */
export interface UpdateStore {
  create(update: NewUpdate): Promise<UpdateRecord>;
  get(stackId: string, updateId: string): Promise<UpdateRecord>;
  update(
    stackId: string,
    updateId: string,
    expectedRevision: number,
    changes: UpdateChanges,
    events?: readonly OutboxEvent[],
  ): Promise<UpdateRecord>;
  /** Adds a completed, non-dry-run update to the history under `update.version`. */
  recordHistory(update: UpdateRecord): Promise<void>;
  /** The history entry of one version; `NotFoundError` when there is none. */
  getHistory(stackId: string, version: number): Promise<UpdateRecord>;
  /** 1-based `page`; `pageSize` between 1 and 100. */
  listHistory(stackId: string, page: number, pageSize: number): Promise<HistoryPage>;
  /** Removes every update and history entry of a stack (used when the stack is deleted). */
  deleteAll(stackId: string): Promise<void>;
}
