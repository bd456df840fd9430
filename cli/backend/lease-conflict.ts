import { LeaseHeldError, type LeaseHolder } from '../../shared/core/errors.js';
import type { StackRef } from '../../shared/core/names.js';
import type { ApiClient } from '../api-client/api-client.js';
import { ApiError } from '../api-client/api-error.js';

/** The holder in the message of Stackyard's `LeaseHeldError`: update id, login, start and expiry (RFC 3339). */
const HOLDER_PATTERN = /Update (\S+) by (\S+) started at (\d{4}-\d\d-\d\dT[\d:.]+Z) and holds the stack until (\d{4}-\d\d-\d\dT[\d:.]+Z)/;

/** The stack's active update as `GET /api/stacks/{org}/{project}/{stack}` answers it, for services without the lease read. */
export type ActiveUpdateReader = (ref: StackRef) => Promise<string | undefined>;

/**
 * A 409 on start because another update runs becomes the engine's `LeaseHeldError` (which `--wait` retries), with
 * the holder read from the message Stackyard writes, else from the stack's active update. Any other error is
 * returned as it is.
 */
export async function leaseHeldError(ref: StackRef, error: unknown, activeUpdate: ActiveUpdateReader): Promise<unknown> {
  if (!(error instanceof ApiError && error.status === 409 && /another update is currently in progress/i.test(error.message))) return error;
  const held = HOLDER_PATTERN.exec(error.message);
  if (held) {
    const [, updateId, holder, startedAt, expiresAt] = held;
    return new LeaseHeldError({ updateId: updateId!, holder: holder!, startedAt: Date.parse(startedAt!), expiresAt: Date.parse(expiresAt!) }, { cause: error });
  }
  const updateId = await activeUpdate(ref).catch(() => undefined);
  const now = Date.now();
  return new LeaseHeldError({ updateId: updateId ?? 'unknown', holder: 'another user', startedAt: now, expiresAt: now }, { cause: error });
}

/**
 * The stack's live lease, as the service's console read answers it (holder, start and expiry; an expired lease is
 * not live). A service without that read (404) is asked for the stack's active update, holder and times unknown.
 */
export async function liveLease(client: ApiClient, ref: StackRef, activeUpdate: ActiveUpdateReader): Promise<LeaseHolder | undefined> {
  try {
    const overview = await client.request<{ lease?: { updateId: string; holder: string; since: number; expiresAt: number } }>({
      method: 'GET',
      path: `/api/console/stacks/${ref.org}/${ref.project}/${ref.stack}`,
      operation: 'get stack lease',
    });
    const lease = overview.lease;
    return lease ? { updateId: lease.updateId, holder: lease.holder, startedAt: lease.since, expiresAt: lease.expiresAt } : undefined;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    const updateId = await activeUpdate(ref);
    const now = Date.now();
    return updateId ? { updateId, holder: 'another user', startedAt: now, expiresAt: now } : undefined;
  }
}
