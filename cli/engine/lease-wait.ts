/**
 * `--wait`: retries starting an operation while another update holds the stack's lease, with exponential backoff,
 * telling the user who holds it each time the holder changes, until the lease is free or the time is up.
 */
import { LeaseHeldError, type LeaseHolder } from '../../shared/core/errors.js';

/** How long to wait and whom to tell; what a backend receives as `begin(…, { wait })`. */
export interface LeaseWaitOptions {
  /** Give up after this long (`Infinity`: no limit); the last `LeaseHeldError` is then thrown. */
  timeoutMs: number;
  /** Called when the lease is found held, and again each time a different update holds it. */
  onWait(holder: LeaseHolder): void;
  /** Stops waiting: the signal's reason is thrown. */
  signal?: AbortSignal;
}

/** Clock and pacing, injectable for tests. */
export interface LeaseWaitTiming {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** First pause between attempts (default 1 s); doubles up to `maxDelayMs` (default 15 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Spreads waiters apart: each pause is scaled by 0.8–1.2 (`random()` in [0, 1)). */
  random?: () => number;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Calls `tryStart` until it does not fail with `LeaseHeldError`; other errors are thrown at once. */
export async function waitForLease<T>(tryStart: () => Promise<T>, options: LeaseWaitOptions & LeaseWaitTiming): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const maxDelay = options.maxDelayMs ?? 15_000;
  const deadline = now() + options.timeoutMs;
  let delay = options.initialDelayMs ?? 1_000;
  let lastHolder: string | undefined;
  for (;;) {
    if (options.signal?.aborted) throw options.signal.reason;
    try {
      return await tryStart();
    } catch (err) {
      if (!(err instanceof LeaseHeldError)) throw err;
      if (err.lease.updateId !== lastHolder) {
        lastHolder = err.lease.updateId;
        options.onWait(err.lease);
      }
      const remaining = deadline - now();
      if (remaining <= 0) throw err;
      await sleep(Math.min(remaining, delay * (0.8 + 0.4 * random())), options.signal);
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}

/** One line saying who holds the lease and until when. */
export function describeLeaseHolder(h: LeaseHolder): string {
  return `waiting for update ${h.updateId} by ${h.holder} (started ${new Date(h.startedAt).toISOString()}, lease held until ${new Date(h.expiresAt).toISOString()})…`;
}
