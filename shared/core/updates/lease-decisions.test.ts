import { describe, expect, it } from 'vitest';
import { LeaseHeldError, type LeaseHolder } from '../errors.js';
import { LeaseDecisions } from './lease-decisions.js';

const holderOf = (updateId: string): LeaseHolder => ({ updateId, holder: 'alice', startedAt: 1, expiresAt: 2 });

/** A lease store stand-in: one holder, granted to the first grant that runs while it is free. */
function fakeLease() {
  let held: LeaseHolder | undefined;
  const counts = { reads: 0, grants: 0 };
  return {
    counts,
    readHolder: async () => {
      counts.reads += 1;
      return held;
    },
    grant: (updateId: string, outcome: 'grant' | 'deny' = 'grant') => async () => {
      counts.grants += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (outcome === 'deny') throw new Error(`gate denied ${updateId}`);
      if (held) throw new LeaseHeldError(held);
      held = holderOf(updateId);
      return updateId;
    },
  };
}

describe('LeaseDecisions', () => {
  it('lets one of many concurrent starts decide; the others are refused by the holder it wrote, without deciding', async () => {
    const decisions = new LeaseDecisions();
    const lease = fakeLease();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => decisions.decide('stack', `u${i}`, undefined, lease.readHolder, lease.grant(`u${i}`))),
    );

    expect(lease.counts.grants).toBe(1);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 'u0' });
    for (const outcome of outcomes.slice(1)) {
      expect(outcome.status).toBe('rejected');
      expect(((outcome as PromiseRejectedResult).reason as LeaseHeldError).lease.updateId).toBe('u0');
    }
  });

  it('refuses at once when the caller already read another live holder', async () => {
    const decisions = new LeaseDecisions();
    const lease = fakeLease();

    await expect(decisions.decide('stack', 'u1', holderOf('u0'), lease.readHolder, lease.grant('u1'))).rejects.toBeInstanceOf(LeaseHeldError);
    expect(lease.counts).toEqual({ reads: 0, grants: 0 });
  });

  it('lets a waiter decide when the decision it waited for failed and left the stack free', async () => {
    const decisions = new LeaseDecisions();
    const lease = fakeLease();

    const denied = decisions.decide('stack', 'u0', undefined, lease.readHolder, lease.grant('u0', 'deny'));
    const waiters = [1, 2, 3].map((i) => decisions.decide('stack', `u${i}`, undefined, lease.readHolder, lease.grant(`u${i}`)));

    await expect(denied).rejects.toThrow('gate denied u0');
    const outcomes = await Promise.allSettled(waiters);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(lease.counts.grants).toBe(2);
  });

  it('keeps stacks apart', async () => {
    const decisions = new LeaseDecisions();
    const [a, b] = [fakeLease(), fakeLease()];

    const granted = await Promise.all([
      decisions.decide('a', 'u1', undefined, a.readHolder, a.grant('u1')),
      decisions.decide('b', 'u2', undefined, b.readHolder, b.grant('u2')),
    ]);

    expect(granted).toEqual(['u1', 'u2']);
  });
});
