import type { LeaseHolder } from '../core/errors.js';
import type { StackRef } from '../core/names.js';

export interface LeaseGrant {
  /** The update token in plaintext; only its hash is stored. */
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface AcquireRequest {
  stackId: string;
  updateId: string;
  /** Login of the user running the update, reported to whoever is refused. */
  holder: string;
  durationMs: number;
  /**
   * The stack's name when the token is granted. Token calls that pass `stack` are live only under this name, so
   * a URL's name is checked in the same read or write as the token.
   */
  stack?: StackRef;
}

export interface TokenRef {
  stackId: string;
  updateId: string;
  token: string;
  /** When present, the token must have been granted under exactly this stack name (see `AcquireRequest.stack`). */
  stack?: StackRef;
}

/**
 * Update tokens and each stack's exclusive update lease (DynamoDB in AWS, lock-protected files locally).
 *
 * Every update gets a token. A non-dry-run update gets it from `acquire`, which also takes the stack's exclusive
 * lease; a dry run gets it from `issue`, which takes nothing exclusive. Tokens are random 256-bit values and are
 * stored only as SHA-256 hashes.
 *
 * Guarantees:
 * - `acquire` is one conditional write: it succeeds only if the stack has no lease or the current one has expired
 *   (expiry is checked in the condition, never left to TTL). When refused it throws `LeaseHeldError` carrying the
 *   holder read by that same write.
 * - A token is live until its expiry, `release` (the update completed) or `revoke` (cancelled); a lease taken over
 *   after expiry kills the old token. `validate` and `renew` of a token that is not live for exactly that
 *   stack and update throw `ForbiddenError`.
 * - `renew` extends the expiry and returns the same token, so calls in flight with it stay valid.
 * - `release` of a dead token throws `ForbiddenError`; `revoke` of an update with no live token does nothing.
 */
export interface LeaseStore {
  acquire(request: AcquireRequest): Promise<LeaseGrant>;
  issue(request: AcquireRequest): Promise<LeaseGrant>;
  validate(ref: TokenRef): Promise<void>;
  /**
   * Validates an exclusive lease token (like `validate`; dry-run tokens are refused) and, in the same conditional
   * write, counts one more state save of the update. Returns the new count: 1 for the first save, then 2, 3, …
   * Each call returns a number no other call for that update returned.
   */
  nextSave(ref: TokenRef): Promise<number>;
  renew(ref: TokenRef, durationMs: number): Promise<LeaseGrant>;
  release(ref: TokenRef): Promise<void>;
  revoke(stackId: string, updateId: string): Promise<void>;
  /** The live exclusive lease of a stack, if any. */
  current(stackId: string): Promise<LeaseHolder | undefined>;
}
