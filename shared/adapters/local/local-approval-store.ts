import { ConflictError } from '../../core/errors.js';
import type { ApprovalRule, ApprovalStore, OutboxEvent, PlanRecord } from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';
import { planRecordPath, type LocalOutbox } from './local-outbox.js';

const LOCK = 'approvals';

/** The rule's identity within its organization: the pair of its conditions. */
function sameKey(a: Pick<ApprovalRule, 'stacks' | 'tag'>, b: Pick<ApprovalRule, 'stacks' | 'tag'>): boolean {
  return (a.stacks ?? '') === (b.stacks ?? '') && (a.tag ?? '') === (b.tag ?? '');
}

function byKey(a: ApprovalRule, b: ApprovalRule): number {
  const left = `${a.stacks ?? ''}\u0000${a.tag ?? ''}`;
  const right = `${b.stacks ?? ''}\u0000${b.tag ?? ''}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * `approvals/<stackId>/required.json`, `approvals/orgs/<org>.json` (the organization's rules) and plan records at
 * `approvals/<stackId>/plans/<id>.json`. Every write holds the `approvals` lock, so the revision check and the write
 * are one step for every process on the folder; hook events ride on the plan write through the outbox.
 */
export class LocalApprovalStore implements ApprovalStore {
  constructor(
    private readonly dir: DataDir,
    private readonly outbox: LocalOutbox,
  ) {}

  async getStackRequirement(stackId: string): Promise<number | undefined> {
    return (await this.dir.readJson<{ required: number }>(this.requirementPath(stackId)))?.required;
  }

  async putStackRequirement(stackId: string, required: number): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.writeJson(this.requirementPath(stackId), { required }));
  }

  async deleteStackRequirement(stackId: string): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.remove(this.requirementPath(stackId)));
  }

  async listRules(org: string): Promise<ApprovalRule[]> {
    return ((await this.dir.readJson<ApprovalRule[]>(this.rulesPath(org))) ?? []).sort(byKey);
  }

  async putRule(org: string, rule: ApprovalRule): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const others = (await this.listRules(org)).filter((held) => !sameKey(held, rule));
      await this.dir.writeJson(this.rulesPath(org), [...others, rule].sort(byKey));
    });
  }

  async deleteRule(org: string, key: Pick<ApprovalRule, 'stacks' | 'tag'>): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const rules = await this.listRules(org);
      const kept = rules.filter((held) => !sameKey(held, key));
      if (kept.length !== rules.length) await this.dir.writeJson(this.rulesPath(org), kept);
    });
  }

  async createPlan(plan: PlanRecord, events?: readonly OutboxEvent[]): Promise<void> {
    const path = planRecordPath(this.dir, plan.stackId, plan.id);
    await this.dir.withLock(LOCK, async () => {
      // Checked before the events are staged: a refused write must not find "its" revision stored and publish them.
      if (await this.dir.readJson<PlanRecord>(path)) throw new ConflictError(`Plan ${plan.id} already exists.`);
      await this.outbox.around(events, this.commitOf(plan), () => this.dir.createJson(path, plan, `Plan ${plan.id}`));
    });
  }

  async getPlan(stackId: string, id: string): Promise<PlanRecord | undefined> {
    return this.dir.readJson<PlanRecord>(planRecordPath(this.dir, stackId, id));
  }

  async listPlans(stackId: string, limit: number): Promise<PlanRecord[]> {
    const folder = this.dir.path('approvals', safeSegment(stackId, 'stack id'), 'plans');
    const names = (await this.dir.list(folder)).reverse().slice(0, limit);
    const plans: PlanRecord[] = [];
    for (const name of names) {
      const plan = await this.dir.readJson<PlanRecord>(this.dir.path('approvals', safeSegment(stackId, 'stack id'), 'plans', name));
      if (plan) plans.push(plan);
    }
    return plans;
  }

  async updatePlan(plan: PlanRecord, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<PlanRecord> {
    const path = planRecordPath(this.dir, plan.stackId, plan.id);
    return this.dir.withLock(LOCK, async () => {
      const current = await this.dir.readJson<PlanRecord>(path);
      if (!current || current.revision !== expectedRevision) {
        throw new ConflictError(`Plan ${plan.id} changed since it was read: read it again and retry.`);
      }
      await this.outbox.around(events, this.commitOf(plan), () => this.dir.writeJson(path, plan));
      return plan;
    });
  }

  private commitOf(plan: PlanRecord) {
    return { record: 'plan', stackId: plan.stackId, planId: plan.id, revision: plan.revision } as const;
  }

  private requirementPath(stackId: string): string {
    return this.dir.path('approvals', safeSegment(stackId, 'stack id'), 'required.json');
  }

  private rulesPath(org: string): string {
    return this.dir.path('approvals', 'orgs', `${safeSegment(org, 'organization')}.json`);
  }
}
