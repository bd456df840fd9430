/** `up --plan <id>`'s approval check and `--wait-for-approval`, with a fake clock and a service that answers in turn. */
import { describe, expect, it } from 'vitest';
import { approvedPlan, goDuration } from './plan-approval.js';
import type { ServicePlans, ServicePlanState } from './operation-types.js';

const pending = (approvals: number): ServicePlanState => ({
  id: 'p1',
  status: 'pending',
  requiredApprovals: 2,
  approvals: Array.from({ length: approvals }, (_, i) => ({ user: `u${i}` })),
});

/** A service whose plan goes through `states` (the last one repeats), and a clock that sleeping moves on. */
function scenario(states: ServicePlanState[]) {
  let clock = 0;
  let asked = 0;
  const plans: ServicePlans = {
    upload: () => Promise.reject(new Error('not used')),
    get: async () => ({ ...states[Math.min(asked++, states.length - 1)]!, plan: { manifest: {} } }),
  };
  const notes: string[] = [];
  const options = { note: (t: string) => notes.push(t), now: () => clock, sleep: async (ms: number) => void (clock += ms) };
  return { plans, notes, options, asked: () => asked, clock: () => clock };
}

describe('approvedPlan', () => {
  it('returns an approved plan at once and refuses a pending one without --wait-for-approval', async () => {
    const approved = scenario([{ ...pending(2), status: 'approved' }]);
    const waiting = scenario([pending(1)]);

    const plan = await approvedPlan(approved.plans, 'p1', approved.options);
    const refusal = approvedPlan(waiting.plans, 'p1', waiting.options);

    expect(plan.plan).toEqual({ manifest: {} });
    await expect(refusal).rejects.toThrow('plan p1 is not approved yet (1 of 2 approvals): ask others to run `stackyard plan approve p1`, or pass --wait-for-approval to wait for them');
  });

  it('waits until the plan is approved, saying once what it waits for', async () => {
    const s = scenario([pending(0), pending(1), pending(1), { ...pending(2), status: 'approved' }]);

    await approvedPlan(s.plans, 'p1', { ...s.options, wait: { timeoutMs: 3_600_000 } });

    expect(s.asked()).toBe(4);
    expect(s.notes).toEqual(['Waiting up to 1h0m0s for plan p1 to be approved (0 of 2 approvals so far; `stackyard plan approve p1`)\n']);
  });

  it('stops waiting when the plan is rejected or made void, naming who or why, and when the time is up', async () => {
    const rejected = scenario([pending(1), { ...pending(1), status: 'rejected', rejection: { user: 'bob', comment: 'not today' } }]);
    const voided = scenario([{ ...pending(0), status: 'void', voidReason: 'the stack moved on' }]);
    const slow = scenario([pending(1)]);

    await expect(approvedPlan(rejected.plans, 'p1', { ...rejected.options, wait: { timeoutMs: 60_000 } })).rejects.toThrow('plan p1 was rejected by bob (not today): run preview --save-plan again');
    await expect(approvedPlan(voided.plans, 'p1', voided.options)).rejects.toThrow('plan p1 is void (the stack moved on): run preview --save-plan again');
    await expect(approvedPlan(slow.plans, 'p1', { ...slow.options, wait: { timeoutMs: 30_000 } })).rejects.toThrow('plan p1 was not approved within 30s (1 of 2 approvals)');
    expect(slow.clock()).toBe(30_000);
  });

  it('prints durations as Go does', () => {
    expect([goDuration(3_600_000), goDuration(1_800_000), goDuration(90_000), goDuration(45_000)]).toEqual(['1h0m0s', '30m0s', '1m30s', '45s']);
  });
});
