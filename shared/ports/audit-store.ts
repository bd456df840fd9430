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
  /** The environment revision the action read, wrote, opened or revealed (environment events only). */
  revision?: number;
  description: string;
  /**
   * `unknown` when the request ended without saying whether the change was made: it died midway (the entry was
   * published from its intent) or storage failed in a way that may have applied it. Absent: the action happened.
   */
  outcome?: 'unknown';
  /**
   * Present on a refusal tally only (see `AuditStore.tally`): how many refusals it stands for. Its `time` is when the
   * first of them was recorded, its other fields (actor, description, request id, user agent) are the first's.
   */
  count?: number;
  /** A tally's latest refusal (epoch ms); `time` is its first. */
  lastSeen?: number;
  /** A tally's API route (`GET /api/user`), when the refusals came through one. */
  route?: string;
}

/** An action's entry, stored before the action is tried; not part of the log until committed or recovered. */
export interface AuditIntent {
  entry: AuditEntry;
  /** Epoch ms after which a request still holding this intent is taken to be dead, and the entry is published. */
  deadline: number;
}

export interface AuditQuery {
  org: string;
  /** Only entries at or after this time (epoch ms). */
  since?: number;
  /** Only entries before this time (epoch ms): Pulumi's `startTime`, the upper bound. */
  before?: number;
  actor?: string;
  event?: string;
  /** Only entries about this target (`acme/proj/dev`): what one environment's page lists. */
  target?: string;
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
 * The append-only audit log, with an outbox of intents for the actions it records.
 *
 * Guarantees: `append` is create-if-absent by id (`ConflictError` otherwise, nothing changed) and there is no way to
 * change or remove an entry through this port; `list` is strongly consistent and newest first, filters applied
 * before paging. Invalid continuation tokens fail with `InvalidInputError`.
 *
 * Intents (timeline of one audited action): `begin` stores the intent before the action is tried, so no action can
 * happen without one; then exactly one of `commit` (the action happened, or may have: the entry is published and the
 * intent removed, one entry even when called twice or after `recover`) or `discard` (the action was refused: the
 * intent goes and the log is unchanged). A request that dies in between leaves its intent, and `recover` publishes it
 * with `outcome: 'unknown'` once its deadline has passed, or (local storage) once the process that began it is gone.
 * Intents are never listed.
 *
 * Refusal tallies bound what a flood of refused requests can write: `tally` counts one refusal into the tally its
 * id names (the core derives the id from the refusal's organization, source, route and minute), creating it from the
 * given entry with `count: 1` when it is absent, else adding 1 to `count` and setting `lastSeen` — one atomic write
 * (DynamoDB: one UpdateItem with ADD; local: under a file lock), so N concurrent tallies of one id leave one tally
 * with count N. Tallies live apart from the entries (which stay create-only) and are the only records ever updated;
 * `list` returns them among the entries, in the order of their ids, with the same filters and pages.
 */
export interface AuditStore {
  append(entry: AuditEntry): Promise<void>;
  /** Counts one refusal into the tally `entry.id` (created from `entry` when absent); see above. */
  tally(entry: AuditEntry): Promise<void>;
  begin(intent: AuditIntent): Promise<void>;
  commit(entry: AuditEntry): Promise<void>;
  discard(entry: AuditEntry): Promise<void>;
  /** Publishes the organization's intents whose requests are dead (`now`: the domain clock, for the deadline). */
  recover(org: string, now: number): Promise<void>;
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

/**
 * Merges two newest-first pages (the entries and the tallies of one query, each cut at `limit`) into one page of at
 * most `limit`, newest first by id; `more` says whether either source had more than it returned.
 */
export function mergeAuditPages(a: AuditEntry[], b: AuditEntry[], limit: number, more: boolean, token: (lastId: string) => string): AuditPage {
  const merged = [...a, ...b].sort((x, y) => (x.id < y.id ? 1 : x.id > y.id ? -1 : 0));
  const entries = merged.slice(0, limit);
  return merged.length > limit || more ? { entries, ...(entries.length > 0 ? { continuationToken: token(entries[entries.length - 1]!.id) } : {}) } : { entries };
}
