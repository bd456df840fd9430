import type { StackRef } from '../names.js';
import type { UpdateKind, UpdateStatus } from '../../ports/update-store.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';
import type { CheckpointUpload, UntypedDeployment } from '../checkpoints/index.js';
import type { StartPlanRef } from '../approvals/index.js';
import type { RequiredPolicyView } from '../policy/index.js';

export interface CreateUpdateRequest {
  kind: Exclude<UpdateKind, 'import' | 'rename'>;
  dryRun: boolean;
  message?: string;
  environment?: Record<string, string>;
  config?: Record<string, unknown>;
}

export interface StartUpdateRequest {
  /** Replaces the stack's tags when present (the Pulumi CLI sends the merged set). */
  tags?: Record<string, string>;
  /** `1` asks for journaling; answered by `negotiateJournalVersion`. */
  journalVersion?: number;
  /** Shorter leases free a crashed run's stack sooner; clamped to [MIN, MAX]; default 300 s. */
  leaseDurationMs?: number;
  /** The approved plan a non-dry-run update applies (`stackyardPlan`): required where the stack requires approvals. */
  plan?: StartPlanRef;
}

export interface UpdateStatusView {
  status: UpdateStatus;
  kind: UpdateKind;
  /** Login of the user who created the update. */
  requestedBy: string;
  /** Epoch milliseconds; absent until started. */
  startedAt?: number;
}

export interface StartedUpdate {
  version: number;
  token: string;
  /** Epoch seconds, as the wire wants it. */
  tokenExpiration: number;
  journalVersion: 0 | 1;
}

export interface UpdateService {
  /** Records the update with the policy packs its stack's groups require now, and answers them (`requiredPolicies`). */
  create(principal: Principal, ref: StackRef, request: CreateUpdateRequest): Promise<{ updateId: string; requiredPolicies: RequiredPolicyView[] }>;
  /** Takes the lease (non-dry-run) or issues a token (dry run); `LeaseHeldError` when another update runs. */
  start(principal: Principal, ref: StackRef, updateId: string, request: StartUpdateRequest): Promise<StartedUpdate>;
  renew(ref: StackRef, updateId: string, token: string, durationMs?: number): Promise<{ token: string; tokenExpiration: number }>;
  /**
   * Durable when it resolves: export returns it from then on. Takes the decoded deployment, or (the fast path for
   * the `checkpoint` PATCH) the gunzipped request body `{isInvalid, version, features?, deployment}` as bytes, which
   * is validated and stored as received instead of being parsed by the caller and serialised again here.
   */
  saveCheckpoint(ref: StackRef, updateId: string, token: string, deployment: UntypedDeployment | Uint8Array | CheckpointUpload): Promise<void>;
  /** `checkpointverbatim`: the gunzipped request body; its `untypedDeployment` bytes are kept exactly. Idempotent by sequence number. */
  saveVerbatimCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** `checkpointdelta`: byte-offset edits on the last verbatim save; hash mismatch or gap = 4xx so the CLI falls back. */
  saveDeltaCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** `journalentries`: one batch, durable and idempotent by `sequenceID`; an oversize batch is `TooLargeError`. */
  saveJournalEntries(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** The token is checked against exactly this update (`ForbiddenError` otherwise), for routes that only need that. */
  validateToken(ref: StackRef, updateId: string, token: string): Promise<void>;
  recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void>;
  /** Idempotent. `cancelled` is recorded, and reported in history as `failed`. */
  complete(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled', request?: RequestInfo): Promise<void>;
  /** Revokes the update's token so the running client stops on its next call. */
  cancel(principal: Principal, ref: StackRef, updateId: string): Promise<void>;
  status(principal: Principal, ref: StackRef, updateId: string): Promise<UpdateStatusView>;
}
