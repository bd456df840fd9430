import type { EnvironmentPermission } from '../core/kernel/permissions.js';
import type { EnvironmentRef } from '../core/names.js';

/** An environment as stored. `id` never changes; revisions, tags, sessions and the data key context use it. */
export interface EnvironmentRecord extends EnvironmentRef {
  /** Immutable internal id (a UUID). */
  id: string;
  /** Number of the latest revision (1 right after `create`); the optimistic-concurrency token of definitions. */
  revision: number;
  /** Base64 of the environment's data key as encrypted by the key service (never the plaintext key). */
  encryptedDataKey: string;
  /** Grant subject (`user:<login>`, `team:<name>`) of whoever created it; it holds `admin` on it. */
  createdBy: string;
  /** Permissions given on this environment, by grant subject. */
  grants: Record<string, EnvironmentPermission>;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the latest revision. */
  modifiedAt: number;
}

/** One revision's metadata; its definition is an object in the checkpoint store (`definitionObject`). */
export interface EnvironmentRevisionRecord {
  number: number;
  /** Name of the definition object, relative to the environment's object scope (`environmentObjectScope`). */
  definition: string;
  /** Epoch milliseconds. */
  createdAt: number;
  creatorLogin: string;
}

/** A new environment: its first revision is created with it. */
export interface NewEnvironment extends EnvironmentRef {
  id: string;
  encryptedDataKey: string;
  createdBy: string;
  grants?: Record<string, EnvironmentPermission>;
}

/** A revision to append: its number is the environment's next. */
export interface NewRevision {
  definition: string;
  createdAt: number;
  creatorLogin: string;
}

/** A named pointer at a revision (`esc env version tag`). `latest` is implicit and never stored. */
export interface RevisionTagRecord {
  name: string;
  revision: number;
  /** Epoch milliseconds. */
  createdAt: number;
  modifiedAt: number;
  editorLogin: string;
}

/** An open session: who opened which revision, until when. It holds no value, so no secret is ever stored. */
export interface OpenSessionRecord {
  /** Random, unguessable (128 bits or more). */
  id: string;
  environmentId: string;
  revision: number;
  login: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  /** An anonymous session's YAML (ESC's `yaml/open`), sealed under its own data key (base64 of both). */
  encryptedDataKey?: string;
  sealedDefinition?: string;
}

export interface EnvironmentPage {
  /** Sorted by project, then name. */
  environments: EnvironmentRecord[];
  /** Absent (never empty) on the last page. */
  continuationToken?: string;
}

/**
 * Environments (DynamoDB single table in AWS, lock-protected files locally). Definitions themselves are immutable
 * objects in the checkpoint store; this store holds what points at them.
 *
 * Guarantees:
 * - A name (`org/project/name`) belongs to at most one environment at any moment: `create` takes it together with
 *   the record and revision 1 in one atomic write, or changes nothing (`ConflictError`).
 * - `addRevision` appends revision `expectedRevision + 1` only if the latest revision is still `expectedRevision`,
 *   in one atomic write with the record; otherwise `ConflictError` with `{expectedRevision, revision}` in its details
 *   and nothing changes. Revisions are never changed or removed.
 * - `delete` applies only at `expectedRevision` (a definition saved meanwhile is never deleted unseen) and frees the
 *   name; the deleted environment's revisions stay stored under its id, unreachable.
 * - `setGrant` sets or removes one subject's grant in one atomic write without a revision check, so concurrent grants
 *   to different subjects all land.
 * - Tags: `createTag` only creates (`ConflictError` when the name exists), `updateTag` only changes an existing tag
 *   and `deleteTag` only removes one (`NotFoundError` otherwise); each is one conditional write.
 * - `getOpenSession` returns `undefined` for a session that does not exist or whose `expiresAt` has passed, by the
 *   store's clock; expired sessions are never returned, whether or not they were swept yet.
 * - Missing environments and revisions fail with `NotFoundError`.
 */
export interface EnvironmentStore {
  create(environment: NewEnvironment, first: NewRevision): Promise<EnvironmentRecord>;
  get(ref: EnvironmentRef): Promise<EnvironmentRecord>;
  getById(id: string): Promise<EnvironmentRecord>;
  /** An organization's environments, `limit` per page (1 to 500, default 100). */
  list(org: string, options?: { limit?: number; continuationToken?: string }): Promise<EnvironmentPage>;
  addRevision(id: string, expectedRevision: number, revision: NewRevision): Promise<EnvironmentRecord>;
  getRevision(id: string, revision: number): Promise<EnvironmentRevisionRecord>;
  /** Newest first: at most `count` revisions numbered below `before` (all when absent). */
  listRevisions(id: string, options: { before?: number; count: number }): Promise<EnvironmentRevisionRecord[]>;
  delete(id: string, expectedRevision: number): Promise<void>;
  setGrant(id: string, subject: string, permission: EnvironmentPermission | null): Promise<EnvironmentRecord>;

  createTag(id: string, tag: RevisionTagRecord): Promise<RevisionTagRecord>;
  updateTag(id: string, name: string, revision: number, editorLogin: string, modifiedAt: number): Promise<RevisionTagRecord>;
  deleteTag(id: string, name: string): Promise<void>;
  getTag(id: string, name: string): Promise<RevisionTagRecord>;
  /** Sorted by name. */
  listTags(id: string): Promise<RevisionTagRecord[]>;

  createOpenSession(session: OpenSessionRecord): Promise<void>;
  getOpenSession(id: string): Promise<OpenSessionRecord | undefined>;
}

/** The checkpoint-store scope (its `stackId`) holding an environment's definition objects. */
export function environmentObjectScope(environmentId: string): string {
  return `environment-${environmentId}`;
}
