/**
 * Approvals are conditional writes on the plan's revision: services on separate AWS clients (separate Lambda
 * instances) approve the last slot of one plan at once, or claim one approved plan for two updates at once, against
 * DynamoDB Local; exactly one of each pair wins and the plan records only the winner.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../shared/adapters/aws/clients.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createApprovalService } from '../../shared/core/approvals/approval-service.js';
import { claimPlan } from '../../shared/core/approvals/start-gate.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { Storage } from '../../shared/ports/index.js';
import { pendingPlan } from '../../shared/testing/contracts/approval-store.contract.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';

let standIns: AwsStandIns;
let restoreEnv: () => void;
let instances: Storage[] = [];

const member = (login: string, org: string): Principal => ({ login, orgs: [org], admin: false, roles: { [org]: 'member' } });

/** A stack of a fresh organization at version 3 (the version the contract's plans are made at). */
async function stackAtVersion3(storage: Storage): Promise<{ id: string; org: string }> {
  const id = randomUUID();
  const org = `race-${id.slice(0, 8)}`;
  const created = await storage.stacks.create({ id, org, project: 'web', stack: 'prod', tags: {}, createdAt: Date.now() });
  await storage.stacks.update(id, created.revision, { version: 3 });
  return { id, org };
}

function outcomes(results: PromiseSettledResult<unknown>[]) {
  const won = results.filter((result) => result.status === 'fulfilled');
  const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  return { won, reasons: lost.map((result) => (result.reason as { reason?: string }).reason) };
}

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  instances = [0, 1].map(() => createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, clients: createAwsClients() }));
}, 120_000);

afterAll(async () => {
  for (const storage of instances) await storage.close();
  restoreEnv?.();
  await standIns?.stop();
});

describe('racing approvals on DynamoDB', () => {
  it('lets one of two approvals of the last slot approve the plan; the other is refused as not pending', async () => {
    const stack = await stackAtVersion3(instances[0]!);
    const plan = { ...pendingPlan(stack.id, Date.now()), org: stack.org, approvals: [{ user: 'bob', at: 1 }] };
    await instances[0]!.approvals.createPlan(plan);
    const ref = { org: stack.org, project: 'web', stack: 'prod' };

    const results = await Promise.allSettled(
      ['carol', 'dave'].map((login, i) => createApprovalService(serviceDeps(instances[i]!)).approve(member(login, stack.org), ref, plan.id)),
    );

    const { won, reasons } = outcomes(results);
    expect(won).toHaveLength(1);
    expect(reasons).toEqual(['plan_not_pending']);
    const stored = await instances[0]!.approvals.getPlan(stack.id, plan.id);
    expect(stored?.status).toBe('approved');
    expect(stored?.approvals).toHaveLength(2);
  });

  it('lets one of two updates apply an approved plan; the other is refused as already applied', async () => {
    const stack = await stackAtVersion3(instances[0]!);
    const plan = { ...pendingPlan(stack.id, Date.now(), 1), status: 'approved' as const, approvals: [{ user: 'bob', at: 1 }] };
    await instances[0]!.approvals.createPlan(plan);

    const results = await Promise.allSettled(['update-a', 'update-b'].map((updateId, i) => claimPlan(serviceDeps(instances[i]!), plan, updateId)));

    const { won, reasons } = outcomes(results);
    expect(won).toHaveLength(1);
    expect(reasons).toEqual(['plan_already_applied']);
    const stored = await instances[0]!.approvals.getPlan(stack.id, plan.id);
    expect(stored?.status).toBe('applied');
    expect(['update-a', 'update-b'][results.findIndex((result) => result.status === 'fulfilled')]).toBe(stored?.appliedUpdate);
  });
});
