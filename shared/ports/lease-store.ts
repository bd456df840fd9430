import type { LeaseHolder } from '../core/errors.js';

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
}

export interface TokenRef {
  stackId: string;
  updateId: string;
  token: string;
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
  renew(ref: TokenRef, durationMs: number): Promise<LeaseGrant>;
  release(ref: TokenRef): Promise<void>;
  revoke(stackId: string, updateId: string): Promise<void>;
  /** The live exclusive lease of a stack, if any. */
  current(stackId: string): Promise<LeaseHolder | undefined>;
}
