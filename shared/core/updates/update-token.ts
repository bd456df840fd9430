/** The update token as the update-token routes present it: which lease it names, and how it is compared. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ForbiddenError } from '../errors.js';
import { validateStackRef, type StackRef } from '../names.js';
import type { TokenRef } from '../../ports/lease-store.js';
import { stackIdOfUpdate } from '../state/stack-state.js';

const DEAD_TOKEN =
  'The update token is not valid for this update: the update completed, was cancelled, or its lease expired. ' +
  'Start a new update.';

/** The lease-token reference for an update-token route; a malformed id or name cannot name a live token. */
export function tokenRef(ref: StackRef, updateId: string, token: string): TokenRef & { stack: StackRef } {
  let stackId: string;
  let stack: StackRef;
  try {
    stackId = stackIdOfUpdate(updateId);
    stack = validateStackRef(ref);
  } catch (error) {
    throw new ForbiddenError(DEAD_TOKEN, { cause: error });
  }
  if (typeof token !== 'string' || token.length === 0) throw new ForbiddenError(DEAD_TOKEN);
  return { stackId, updateId, token, stack };
}

/** The SHA-256 of a token, as the update record keeps it once the token has completed the update. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Constant-time comparison of two hex hashes; empty ones never match. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The wire's token expiry: epoch seconds. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * The public id of an update's lease token, as the audit log names it: a prefix of the SHA-256 the update record
 * keeps as `completedTokenHash`, which tells nothing about the token itself.
 */
export function leaseTokenId(tokenHash: string): string {
  return `update-${tokenHash.slice(0, 16)}`;
}
