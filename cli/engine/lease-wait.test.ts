import { describe, expect, it } from 'vitest';
import { LeaseHeldError, type LeaseHolder, UnavailableError } from '../../shared/core/errors.js';
import { describeLeaseHolder, waitForLease } from './lease-wait.js';

function holder(updateId: string, by = 'alice'): LeaseHolder {
  return { updateId, holder: by, startedAt: Date.UTC(2026, 0, 1, 10), expiresAt: Date.UTC(2026, 0, 1, 10, 5) };
}

/** A fake clock whose sleep advances time instantly, recording each pause. */
function fakeClock() {
  let t = 0;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps };
}

describe('waitForLease', () => {
  it('retries with exponential backoff until the lease is free, announcing each new holder once', async () => {
    const clock = fakeClock();
    const holders = [holder('u1'), holder('u1'), holder('u2', 'bob'), holder('u2', 'bob'), holder('u2', 'bob')];
    const announced: string[] = [];
    let attempts = 0;
    const result = await waitForLease(
      async () => {
        const h = holders[attempts++];
        if (h) throw new LeaseHeldError(h);
        return 'started';
      },
      { timeoutMs: 600_000, onWait: (h) => announced.push(`${h.updateId} ${h.holder}`), ...clock, random: () => 0.5, initialDelayMs: 1_000, maxDelayMs: 4_000 },
    );
    expect(result).toBe('started');
    expect(attempts).toBe(6);
    expect(announced).toEqual(['u1 alice', 'u2 bob']);
    expect(clock.sleeps).toEqual([1_000, 2_000, 4_000, 4_000, 4_000]);
  });

  it('gives up at the deadline with the holder in the error, never sleeping past it', async () => {
    const clock = fakeClock();
    let attempts = 0;
    const failing = waitForLease(
      async () => {
        attempts++;
        throw new LeaseHeldError(holder('u9', 'carol'));
      },
      { timeoutMs: 5_000, onWait: () => undefined, ...clock, random: () => 0.5 },
    );
    await expect(failing).rejects.toThrow(/Update u9 by carol/);
    expect(clock.sleeps).toEqual([1_000, 2_000, 2_000]);
    expect(clock.now()).toBe(5_000);
    expect(attempts).toBe(4);
  });

  it('passes other errors through at once, and stops when its signal aborts', async () => {
    const clock = fakeClock();
    await expect(waitForLease(async () => Promise.reject(new UnavailableError('down')), { timeoutMs: 60_000, onWait: () => undefined, ...clock })).rejects.toThrow('down');
    expect(clock.sleeps).toEqual([]);

    const abort = new AbortController();
    const stopped = waitForLease(
      async () => {
        abort.abort(new Error('interrupted'));
        throw new LeaseHeldError(holder('u1'));
      },
      { timeoutMs: 60_000, onWait: () => undefined, signal: abort.signal, now: () => 0 },
    );
    await expect(stopped).rejects.toThrow('interrupted');
  });

  it('describes the holder with its update, user and lease times', () => {
    expect(describeLeaseHolder(holder('u1'))).toBe('waiting for update u1 by alice (started 2026-01-01T10:00:00.000Z, lease held until 2026-01-01T10:05:00.000Z)…');
  });
});
