/**
 * A long-lived process for the local lease race test: it opens the shared data folder once and runs the lease
 * operations its parent sends over IPC, several at a time.
 */
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { isDomainError } from '../../shared/core/errors.js';
import type { AcquireRequest, TokenRef } from '../../shared/ports/index.js';

export type WorkerRequest =
  | { seq: number; op: 'acquire'; requests: AcquireRequest[] }
  | { seq: number; op: 'validate' | 'release'; ref: TokenRef }
  | { seq: number; op: 'renew'; ref: TokenRef; durationMs: number }
  | { seq: number; op: 'revoke'; stackId: string; updateId: string };

/** Per operation: the token granted, or the domain error kind. */
export type Outcome = { ok: true; token?: string; expiresAt?: number } | { ok: false; kind: string };

export interface WorkerReply {
  seq: number;
  outcomes: Outcome[];
}

const storage = await createLocalStorage({ dataDir: process.argv[2] });

async function outcome(fn: () => Promise<{ token: string; expiresAt: number } | void>): Promise<Outcome> {
  try {
    const grant = await fn();
    return grant ? { ok: true, token: grant.token, expiresAt: grant.expiresAt } : { ok: true };
  } catch (error) {
    return { ok: false, kind: isDomainError(error) ? error.kind : String(error) };
  }
}

process.on('message', async (message: WorkerRequest) => {
  let outcomes: Outcome[];
  switch (message.op) {
    case 'acquire':
      outcomes = await Promise.all(message.requests.map((r) => outcome(() => storage.leases.acquire(r))));
      break;
    case 'validate':
      outcomes = [await outcome(() => storage.leases.validate(message.ref))];
      break;
    case 'release':
      outcomes = [await outcome(() => storage.leases.release(message.ref))];
      break;
    case 'renew':
      outcomes = [await outcome(() => storage.leases.renew(message.ref, message.durationMs))];
      break;
    case 'revoke':
      outcomes = [await outcome(() => storage.leases.revoke(message.stackId, message.updateId))];
      break;
  }
  process.send!({ seq: message.seq, outcomes } satisfies WorkerReply);
});

process.send!({ seq: 0, outcomes: [] } satisfies WorkerReply);
