import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { PlanRecord } from '../../ports/approval-store.js';
import { approvePlan, changeCount, newPlanId, planView, readPlanUpload, rejectPlan } from './plans.js';
import { PlanAuthorError, PlanConflictError } from './refusals.js';
import { decideStart } from './start-decision.js';

const T0 = Date.UTC(2026, 10, 28, 6, 0, 0);
const DIGEST = 'b'.repeat(64);

function plan(overrides: Partial<PlanRecord> = {}): PlanRecord {
  return {
    id: newPlanId(T0),
    stackId: 'stack-1',
    org: 'acme',
    author: 'alice',
    created: T0,
    stackVersion: 4,
    programDigest: DIGEST,
    status: 'pending',
    changes: 1,
    requiredApprovals: 2,
    approvals: [],
    revision: 1,
    ...overrides,
  };
}

function reasonOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as { reason?: string }).reason;
  }
  return undefined;
}

describe('a plan upload', () => {
  it('reads the stack version and the operations of each resource plan', () => {
    const upload = readPlanUpload({
      manifest: { time: '', magic: '', version: '' },
      resourcePlans: {
        'urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs': { goal: { type: 'aws:s3/bucket:Bucket' }, steps: ['create'] },
        'urn:pulumi:prod::web::my:Comp$random:index/randomPet:RandomPet::pet': { steps: ['same'] },
      },
      stackyard: { stackVersion: 7, programDigest: 'sealed' },
    });

    expect(upload.stackVersion).toBe(7);
    expect(upload.operations).toEqual([
      { urn: 'urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs', type: 'aws:s3/bucket:Bucket', ops: ['create'] },
      { urn: 'urn:pulumi:prod::web::my:Comp$random:index/randomPet:RandomPet::pet', type: 'random:index/randomPet:RandomPet', ops: ['same'] },
    ]);
    expect(changeCount(upload.operations)).toBe(1);
  });

  it('takes a plan of a stack without history as made at version 0, and refuses one without the stackyard field', () => {
    expect(readPlanUpload({ manifest: {}, stackyard: { programDigest: 'x' } }).stackVersion).toBe(0);
    expect(() => readPlanUpload({ manifest: {}, resourcePlans: {} })).toThrow(InvalidInputError);
    expect(() => readPlanUpload({ manifest: {}, stackyard: { stackVersion: 'one' } })).toThrow(InvalidInputError);
    expect(() => readPlanUpload({ manifest: {}, stackyard: {}, resourcePlans: { u: { steps: [1] } } })).toThrow(InvalidInputError);
  });
});

describe('approving and rejecting', () => {
  it('counts distinct users other than the author and approves at the required count', () => {
    const once = approvePlan(plan(), 'bob', T0 + 1, 'looks right');

    expect(once).toMatchObject({ status: 'pending', revision: 2, approvals: [{ user: 'bob', at: T0 + 1, comment: 'looks right' }] });
    expect(approvePlan(once, 'carol', T0 + 2)).toMatchObject({ status: 'approved', revision: 3 });
    expect(() => approvePlan(once, 'alice', T0 + 2)).toThrow(PlanAuthorError);
    expect(reasonOf(() => approvePlan(once, 'bob', T0 + 2))).toBe('already_approved');
  });

  it('refuses verdicts on a plan that is not pending', () => {
    const rejected = rejectPlan(plan(), 'bob', T0 + 1);

    expect(rejected).toMatchObject({ status: 'rejected', rejection: { user: 'bob', at: T0 + 1 } });
    expect(reasonOf(() => approvePlan(rejected, 'carol', T0 + 2))).toBe('plan_not_pending');
    expect(reasonOf(() => rejectPlan(plan({ status: 'void' }), 'carol', T0 + 2))).toBe('plan_not_pending');
    expect(() => rejectPlan(plan(), 'alice', T0 + 2)).toThrow(PlanAuthorError);
  });

  it('shows a pending or approved plan the stack moved on from as void', () => {
    expect(planView(plan(), 5)).toMatchObject({ status: 'void', voidReason: expect.stringMatching(/made at version 4; the stack is at version 5/) });
    expect(planView(plan(), 4).status).toBe('pending');
    expect(planView(plan({ status: 'applied' }), 5).status).toBe('applied');
  });

  it('shows times as ISO strings', () => {
    const view = planView(approvePlan(plan(), 'bob', T0));

    expect(view.created).toBe('2026-11-28T06:00:00.000Z');
    expect(view.approvals).toEqual([{ user: 'bob', at: '2026-11-28T06:00:00.000Z' }]);
  });
});

describe('the start decision', () => {
  const facts = { stackName: 'acme/web/prod', required: 2, stackVersion: 4 };
  const approved = plan({ status: 'approved', approvals: [{ user: 'bob', at: T0 }, { user: 'carol', at: T0 }], revision: 3 });
  const given = { id: approved.id, programDigest: DIGEST };

  it('lets a stack without a requirement start as before, and applies an approved plan that still fits', () => {
    expect(decideStart({ ...facts, required: 0 })).toEqual({ kind: 'free' });
    expect(decideStart({ ...facts, given, plan: approved })).toEqual({ kind: 'apply', plan: approved });
  });

  it('refuses a start without a plan saying what to do', () => {
    const decision = decideStart(facts);

    expect(decision).toMatchObject({ kind: 'refuse', reason: 'approval_required' });
    expect(decision.kind === 'refuse' && decision.message).toMatch(/requires 2 approvals.*preview --save-plan.*up --plan/);
  });

  it('voids a plan once the stack version moved on, or the program changed', () => {
    const stale = decideStart({ ...facts, stackVersion: 5, given, plan: approved });
    const changed = decideStart({ ...facts, given: { ...given, programDigest: 'c'.repeat(64) }, plan: approved });

    expect(stale).toMatchObject({ kind: 'refuse', reason: 'plan_stale', voidReason: expect.stringMatching(/made at version 4; the stack is at version 5/) });
    expect(changed).toMatchObject({ kind: 'refuse', reason: 'plan_program_changed', voidReason: expect.stringMatching(/program changed/) });
    expect(decideStart({ ...facts, given, plan: { ...approved, status: 'void', voidReason: 'x' } })).toMatchObject({ reason: 'plan_program_changed' });
    expect(decideStart({ ...facts, given, plan: { ...approved, status: 'void', voidReason: 'x' } })).not.toHaveProperty('voidReason');
  });

  it('says how many approvals are missing, and refuses an applied or rejected plan', () => {
    const pending = decideStart({ ...facts, given, plan: plan({ approvals: [{ user: 'bob', at: T0 }] }) });
    const raised = decideStart({ ...facts, required: 3, given, plan: approved });

    expect(pending).toMatchObject({ kind: 'refuse', reason: 'plan_not_approved', message: expect.stringMatching(/1 approval of the 2 .* 1 more approval needed/) });
    expect(raised).toMatchObject({ reason: 'plan_not_approved', message: expect.stringMatching(/1 more approval/) });
    expect(decideStart({ ...facts, given, plan: { ...approved, status: 'applied', appliedUpdate: 'u1' } })).toMatchObject({ reason: 'plan_already_applied' });
    expect(decideStart({ ...facts, updateId: 'u1', given, plan: { ...approved, status: 'applied', appliedUpdate: 'u1' } })).toMatchObject({ kind: 'apply' });
    expect(decideStart({ ...facts, given, plan: plan({ status: 'rejected' }) })).toMatchObject({ reason: 'plan_not_approved' });
  });

  it('is a PlanConflictError with its reason when thrown', () => {
    expect(new PlanConflictError('plan_stale', 'x')).toMatchObject({ status: 409, reason: 'plan_stale' });
  });
});
