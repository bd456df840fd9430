/** The approval service on the local adapter: hook events ride with the plan writes, and refusals write nothing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, START_TIME, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';
import { createApprovalService, type ApprovalService } from './approval-service.js';

const ref = { org: 'acme', project: 'web', stack: 'prod' };
const DIGEST = 'f'.repeat(64);
const planFile = { manifest: { time: '', magic: '', version: '' }, resourcePlans: { 'urn:pulumi:prod::web::t:m:R::a': { steps: ['create'] } }, stackyard: { stackVersion: 0 } };

describe('approval service', () => {
  let fixture: ServiceFixture;
  let approvals: ApprovalService;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;

  /** The kinds of the plan events waiting in the outbox, claimed (and so taken out) now. */
  async function planEvents(): Promise<string[]> {
    const claimed = await fixture.storage.hooks.claimEvents(START_TIME, START_TIME + 60_000, 100);
    for (const event of claimed) await fixture.storage.hooks.completeEvent(event.id);
    return claimed.filter((event) => event.kind.startsWith('plan_')).map((event) => `${event.kind} ${(event.payload.user as { name: string }).name}`);
  }

  beforeEach(async () => {
    fixture = await serviceFixture();
    approvals = createApprovalService(fixture.deps);
    alice = await fixture.user('alice', ['acme'], 'admin');
    bob = await fixture.user('bob', ['acme']);
    carol = await fixture.user('carol', ['acme']);
    await fixture.stacks.create(alice, ref);
    await approvals.setRequirement(alice, ref, 2);
    await planEvents();
  });

  afterEach(async () => {
    await fixture.close();
  });

  it('raises plan_approval_requested with the upload and plan_approved with the approval that reaches the count', async () => {
    const plan = await approvals.submitPlan(alice, ref, { plan: planFile, programDigest: DIGEST });
    const requested = await planEvents();
    await approvals.approve(bob, ref, plan.id);
    const afterFirst = await planEvents();
    await approvals.approve(carol, ref, plan.id);

    expect(requested).toEqual(['plan_approval_requested alice']);
    expect(afterFirst).toEqual([]);
    expect(await planEvents()).toEqual(['plan_approved carol']);
  });

  it('raises plan_rejected with a rejection', async () => {
    const plan = await approvals.submitPlan(alice, ref, { plan: planFile, programDigest: DIGEST });
    await planEvents();

    await approvals.reject(bob, ref, plan.id, 'not today');

    expect(await planEvents()).toEqual(['plan_rejected bob']);
  });

  it('changes nothing on a refused verdict or upload', async () => {
    const plan = await approvals.submitPlan(alice, ref, { plan: planFile, programDigest: DIGEST });
    await approvals.approve(bob, ref, plan.id);
    const before = await fixture.snapshot();

    await expect(approvals.approve(alice, ref, plan.id)).rejects.toMatchObject({ reason: 'plan_author_cannot_approve' });
    await expect(approvals.approve(bob, ref, plan.id)).rejects.toMatchObject({ reason: 'already_approved' });
    await expect(approvals.submitPlan(bob, ref, { plan: { manifest: {} }, programDigest: DIGEST })).rejects.toMatchObject({ status: 400 });
    await expect(approvals.setRequirement(bob, ref, 3)).rejects.toMatchObject({ status: 403 });

    expect(await fixture.snapshot()).toEqual(before);
  });
});
