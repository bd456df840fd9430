import { InvalidInputError } from '../core/errors.js';

/** One audit log entry. Never contains a token, a secret or a plaintext value: names and ids only. */
export interface AuditEntry {
  /** Unique and time-ordered: `<13-digit epoch ms>-<random>`. */
  id: string;
  /** The organization the action concerns; `''` for the site log (authentication failures of unknown tokens). */
  org: string;
  /** Epoch milliseconds. */
  time: number;
  /** `stack.deleted`, `secret.decrypted`, `auth.failed`, … (docs/security.md lists them). */
  event: string;
  /** Who acted: a login, a team or organization token's owner key, or `anonymous`. */
  actor: string;
  /** The public id of the token used (never the token). */
  tokenId?: string;
  requestId?: string;
  sourceIp?: string;
  userAgent?: string;
  /** What was acted on: `acme/proj/dev`, `team ops`, … */
  target?: string;
  description: string;
  /** `failed` on the entry appended after a recorded action that then did not happen. */
  outcome?: 'failed';
}

export interface AuditQuery {
  org: string;
  /** Only entries at or after this time (epoch ms). */
  since?: number;
  /** Only entries before this time (epoch ms): Pulumi's `startTime`, the upper bound. */
  before?: number;
  actor?: string;
  event?: string;
  /** At most this many entries (default 100, max 1000). */
  limit?: number;
  /** Opaque, from the previous page of the same query. */
  continuationToken?: string;
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Absent (never empty) on the last page. */
  continuationToken?: string;
}

/**
 * The append-only audit log.
 *
 * Guarantees: `append` is create-if-absent by id (`ConflictError` otherwise, nothing changed) and there is no way to
 * change or remove an entry through this port; `list` is strongly consistent and newest first, filters applied
 * before paging. Invalid continuation tokens fail with `InvalidInputError`.
 */
export interface AuditStore {
  append(entry: AuditEntry): Promise<void>;
  list(query: AuditQuery): Promise<AuditPage>;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** The page size of an audit query, checked the same way by every adapter. */
export function checkAuditLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidInputError(`The page size must be 1 to ${MAX_LIMIT}.`);
  }
  return limit;
}
