import type { StackPermission } from '../core/kernel/permissions.js';
import type { StackRef } from '../core/names.js';
import type { OutboxEvent } from './hook-store.js';

/** A stack as stored. `id` never changes, so renames move no data and change no keys. */
export interface StackRecord extends StackRef {
  /** Immutable internal id (a UUID). Checkpoints, updates, leases and the data key context all use it. */
  id: string;
  /** Counts completed state-changing operations (update, refresh, destroy, import, state edits, rename). */
  version: number;
  /** Optimistic-concurrency counter: every successful write bumps it by one. */
  revision: number;
  tags: Record<string, string>;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last completed state-changing operation. */
  lastUpdate?: number;
  resourceCount?: number;
  /** Base64 of the stack's data key as encrypted by the key service (never the plaintext key). */
  encryptedDataKey?: string;
  /** Name (in the checkpoint store) of the stack's current deployment, absent until the first save. */
  currentCheckpoint?: string;
  /** The update currently running (non-dry-run), if any. */
  activeUpdate?: string;
  /** Grant subject (`user:<login>`, `team:<name>`) of whoever created the stack; it holds `admin` on it. */
  createdBy?: string;
  /** Permissions given on this stack, by grant subject; they move with the stack on rename. */
  grants?: Record<string, StackPermission>;
  /**
   * `<project>/<env>`: the ESC environment that holds the stack's configuration (`stack init --remote-config`), in
   * the stack's organization. Absent when the configuration lives in `Pulumi.<stack>.yaml`.
   */
  configEnvironment?: string;
}

export interface NewStack extends StackRef {
  id: string;
  tags: Record<string, string>;
  createdAt: number;
  encryptedDataKey?: string;
  currentCheckpoint?: string;
  createdBy?: string;
  grants?: Record<string, StackPermission>;
  configEnvironment?: string;
}

/** Fields a caller may change; `null` removes an optional field. */
export interface StackChanges {
  version?: number;
  tags?: Record<string, string>;
  lastUpdate?: number | null;
  resourceCount?: number | null;
  encryptedDataKey?: string | null;
  currentCheckpoint?: string | null;
  activeUpdate?: string | null;
  configEnvironment?: string | null;
  /** Replaces all grants (conditional on the revision like every change). */
  grants?: Record<string, StackPermission>;
}

export interface ListStacksQuery {
  org: string;
  project?: string;
  /** Only stacks that have this tag (with `tagValue`, only with that value). */
  tagName?: string;
  tagValue?: string;
  /** At most this many stacks per page (default 100, max 500). */
  limit?: number;
  /** Opaque token from a previous page; invalid tokens fail with `InvalidInputError`. */
  continuationToken?: string;
}

export interface StackPage {
  /** Sorted by project, then stack name. */
  stacks: StackRecord[];
  /** Absent (never empty) on the last page. */
  continuationToken?: string;
}

/**
 * Stack records (DynamoDB single table in AWS, files locally).
 *
 * Guarantees:
 * - A name (`org/project/stack`) belongs to at most one stack at any moment: `create` and `rename` take it
 *   atomically or change nothing (`ConflictError`).
 * - `update`, `rename` and `delete` apply only if the stored `revision` equals `expectedRevision`; otherwise they
 *   fail with `ConflictError` and change nothing. Each success bumps `revision` by one.
 * - Missing stacks fail with `NotFoundError`.
 * - `events` (hook outbox events, see HookStore) are written in the same atomic write as the change: when the
 *   write fails nothing of them is stored, when it succeeds all of them are.
 */
export interface StackStore {
  create(stack: NewStack, events?: readonly OutboxEvent[]): Promise<StackRecord>;
  get(ref: StackRef): Promise<StackRecord>;
  getById(id: string): Promise<StackRecord>;
  list(query: ListStacksQuery): Promise<StackPage>;
  update(id: string, expectedRevision: number, changes: StackChanges, events?: readonly OutboxEvent[]): Promise<StackRecord>;
  /** Moves the stack to a new name (same org) and applies `changes`, in one transaction. */
  rename(id: string, expectedRevision: number, to: StackRef, changes?: StackChanges): Promise<StackRecord>;
  delete(id: string, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<void>;
  /**
   * Sets (or with `null` removes) one subject's grant in a single atomic write, with no revision check: concurrent
   * grants to different subjects all land, without retries. It bumps `revision`, so a revision-checked write of the
   * stack read before it fails instead of writing back stale grants. `InvalidInputError` past MAX_GRANTS grants.
   */
  setGrant(id: string, subject: string, permission: StackPermission | null): Promise<StackRecord>;
}
