import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import { newEventId } from '../../core/hooks/outbox-events.js';
import type { OutboxEvent, PlanRecord } from '../../ports/index.js';
import type { ContractEnv, ContractSetup } from './setup.js';
import { uniqueOrg } from './setup.js';

/** A plan just uploaded (`pending`, revision 1) of the given stack, made at `created` (epoch ms, so ids sort by it). */
export function pendingPlan(stackId: string, created: number, requiredApprovals = 2): PlanRecord {
  return {
    id: `${created.toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`,
    stackId,
    org: 'acme',
    author: 'alice',
    created,
    stackVersion: 3,
    programDigest: 'a'.repeat(64),
    status: 'pending',
    changes: 1,
    requiredApprovals,
    approvals: [],
    revision: 1,
  };
}

function planEvent(org: string, stackId: string): OutboxEvent {
  const at = 1_700_000_000_000;
  return { id: newEventId(at), kind: 'plan_approved', org, stackId, occurredAt: at, payload: { event: 'plan_approved' } };
}

/** ApprovalStore guarantees: single-item requirements and rules, create-once plans, plan writes at a revision with their events. */
export function approvalStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`ApprovalStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it("keeps a stack's own requirement until it is deleted", async () => {
      const stackId = randomUUID();
      expect(await env.storage.approvals.getStackRequirement(stackId)).toBeUndefined();

      await env.storage.approvals.putStackRequirement(stackId, 2);
      await env.storage.approvals.putStackRequirement(stackId, 3);

      expect(await env.storage.approvals.getStackRequirement(stackId)).toBe(3);
      await env.storage.approvals.deleteStackRequirement(stackId);
      expect(await env.storage.approvals.getStackRequirement(stackId)).toBeUndefined();
      await env.storage.approvals.deleteStackRequirement(stackId);
    });

    it('keys rules by (stacks, tag): a put with the same pair replaces, a delete removes only that rule', async () => {
      const org = uniqueOrg();
      await env.storage.approvals.putRule(org, { required: 1, stacks: 'web/*' });
      await env.storage.approvals.putRule(org, { required: 2, stacks: 'web/*', tag: 'env=prod' });
      await env.storage.approvals.putRule(org, { required: 3 });

      await env.storage.approvals.putRule(org, { required: 4, stacks: 'web/*' });

      expect(await env.storage.approvals.listRules(org)).toEqual([
        { required: 3 },
        { required: 4, stacks: 'web/*' },
        { required: 2, stacks: 'web/*', tag: 'env=prod' },
      ]);
      await env.storage.approvals.deleteRule(org, { stacks: 'web/*' });
      await env.storage.approvals.deleteRule(org, { tag: 'nothing=here' });
      expect(await env.storage.approvals.listRules(org)).toEqual([{ required: 3 }, { required: 2, stacks: 'web/*', tag: 'env=prod' }]);
      expect(await env.storage.approvals.listRules(uniqueOrg())).toEqual([]);
    });

    it("creates a plan once and lists a stack's plans newest first", async () => {
      const stackId = randomUUID();
      const older = pendingPlan(stackId, 1_700_000_000_000);
      const newer = pendingPlan(stackId, 1_700_000_000_500);
      await env.storage.approvals.createPlan(older);
      await env.storage.approvals.createPlan(newer);

      await expect(env.storage.approvals.createPlan({ ...older, author: 'mallory' })).rejects.toBeInstanceOf(ConflictError);

      expect((await env.storage.approvals.listPlans(stackId, 10)).map((plan) => plan.id)).toEqual([newer.id, older.id]);
      expect((await env.storage.approvals.listPlans(stackId, 1)).map((plan) => plan.id)).toEqual([newer.id]);
      expect(await env.storage.approvals.getPlan(stackId, older.id)).toEqual(older);
      expect(await env.storage.approvals.getPlan(randomUUID(), older.id)).toBeUndefined();
    });

    it('writes a plan only at the revision its writer read', async () => {
      const plan = pendingPlan(randomUUID(), 1_700_000_001_000);
      await env.storage.approvals.createPlan(plan);
      const approved = { ...plan, approvals: [{ user: 'bob', at: 1 }], revision: 2 };

      await env.storage.approvals.updatePlan(approved, 1);

      await expect(env.storage.approvals.updatePlan({ ...plan, status: 'rejected', revision: 2 }, 1)).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.approvals.getPlan(plan.stackId, plan.id)).toEqual(approved);
    });

    it("publishes a plan write's events with it, and none of a refused write", async () => {
      const org = uniqueOrg();
      const plan = pendingPlan(randomUUID(), 1_700_000_002_000);
      const created = planEvent(org, plan.stackId);
      const refused = planEvent(org, plan.stackId);
      const applied = planEvent(org, plan.stackId);
      await env.storage.approvals.createPlan(plan, [created]);

      await expect(env.storage.approvals.updatePlan({ ...plan, revision: 2 }, 7, [refused])).rejects.toBeInstanceOf(ConflictError);
      await env.storage.approvals.updatePlan({ ...plan, status: 'approved', revision: 2 }, 1, [applied]);

      const now = env.clock.now();
      const claimed = (await env.storage.hooks.claimEvents(now, now + 60_000, 100)).map((event) => event.id);
      expect(claimed).toContain(created.id);
      expect(claimed).toContain(applied.id);
      expect(claimed).not.toContain(refused.id);
      for (const id of [created.id, applied.id]) await env.storage.hooks.completeEvent(id);
    });
  });
}
