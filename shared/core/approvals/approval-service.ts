import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { ApprovalRule, PlanRecord } from '../../ports/approval-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited, type AuditSpec } from '../audit/audit.js';
import { loadStack, requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { planEvent } from './events.js';
import {
  approvePlan,
  changeCount,
  isPlanId,
  newPlanId,
  planView,
  readPlanUpload,
  rejectPlan,
  staleness,
  validateComment,
  validateProgramDigest,
  voidPlan,
  type PlanOperation,
  type PlanView,
} from './plans.js';
import { PlanConflictError } from './refusals.js';
import { requirementOf } from './requirement.js';
import { validateRequired, validateRule, type EffectiveRequirement } from './rules.js';

/** A plan with its document and operations (`GET …/plans/{id}`). */
export interface PlanDetail extends PlanView {
  plan: unknown;
  operations: PlanOperation[];
}

/** What `POST …/plans` carries. */
export interface PlanSubmission {
  plan: unknown;
  programDigest: unknown;
}

/** Approvals on the service (docs/plans.md): requirements, plans, verdicts. The start check is in start-gate.ts. */
export interface ApprovalService {
  getRequirement(principal: Principal, ref: StackRef): Promise<EffectiveRequirement>;
  /** The stack's own requirement; 0 removes it (the organization's rules apply again). */
  setRequirement(principal: Principal, ref: StackRef, required: unknown): Promise<EffectiveRequirement>;
  listRules(principal: Principal, org: string): Promise<{ rules: ApprovalRule[] }>;
  /** Upserts the rule keyed by (stacks, tag); `required: 0` removes it. */
  putRule(principal: Principal, org: string, rule: { required: unknown; stacks?: unknown; tag?: unknown }): Promise<{ rules: ApprovalRule[] }>;
  submitPlan(principal: Principal, ref: StackRef, submission: PlanSubmission): Promise<PlanView>;
  listPlans(principal: Principal, ref: StackRef): Promise<PlanView[]>;
  getPlan(principal: Principal, ref: StackRef, id: string): Promise<PlanDetail>;
  approve(principal: Principal, ref: StackRef, id: string, comment?: unknown): Promise<PlanView>;
  reject(principal: Principal, ref: StackRef, id: string, comment?: unknown): Promise<PlanView>;
}

const MAX_LIST = 100;
/** Concurrent verdicts retry on a lost conditional write; each retry re-reads, so this bounds only pathological churn. */
const VERDICT_RETRIES = 16;

/** The checkpoint-store object holding a plan's document. */
export function planObject(stackId: string, id: string) {
  return { stackId, name: `plans/${id}.json` };
}

export function createApprovalService(deps: ServiceDeps): ApprovalService {
  const store = () => deps.storage.approvals;

  async function findPlan(stack: StackRecord, id: string): Promise<PlanRecord> {
    const plan = isPlanId(id) ? await store().getPlan(stack.id, id) : undefined;
    if (!plan) throw new NotFoundError(`Plan '${id.slice(0, 64)}' not found on ${formatStackRef(stack)}: list the stack's plans with 'stackyard plan ls'.`);
    return plan;
  }

  /** Applies a verdict with a conditional write, re-reading after a lost race (the other writer's verdict stands). */
  async function judge(principal: Principal, ref: StackRef, id: string, comment: unknown, approving: boolean): Promise<PlanView> {
    const stack = await loadStack(deps, principal, ref, 'approve-plan');
    const note = validateComment(comment);
    const target = formatStackRef(stack);
    for (let attempt = 0; ; attempt++) {
      const plan = await findPlan(stack, id);
      const stale = plan.status === 'pending' ? staleness(plan, stack.version) : undefined;
      if (stale) {
        await store().updatePlan(voidPlan(plan, stale), plan.revision).catch(() => undefined);
        throw new PlanConflictError('plan_not_pending', `Plan ${plan.id} is void (${stale}), not pending: only a pending plan can be approved or rejected.`);
      }
      const next = approving ? approvePlan(plan, principal.login, deps.now(), note) : rejectPlan(plan, principal.login, deps.now(), note);
      const events =
        next.status === 'approved' ? [planEvent('plan_approved', stack, next, principal.login, deps.now())]
        : next.status === 'rejected' ? [planEvent('plan_rejected', stack, next, principal.login, deps.now())]
        : [];
      const spec: AuditSpec = approving
        ? {
            org: stack.org,
            event: 'plan.approved',
            target,
            description: `approved plan ${plan.id} of ${target} (${next.approvals.length} of ${next.requiredApprovals}${next.status === 'approved' ? ': the plan is approved' : ''})`,
          }
        : { org: stack.org, event: 'plan.rejected', target, description: `rejected plan ${plan.id} of ${target} by ${plan.author}` };
      try {
        return planView(await audited(deps, principal, spec, () => store().updatePlan(next, plan.revision, events)));
      } catch (error) {
        if (!(error instanceof ConflictError) || error instanceof PlanConflictError || attempt >= VERDICT_RETRIES) throw error;
      }
    }
  }

  return {
    async getRequirement(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-approvals');
      return requirementOf(deps, stack);
    },

    async setRequirement(principal, ref, required) {
      const count = validateRequired(required);
      const stack = await loadStack(deps, principal, ref, 'manage-approvals');
      const target = formatStackRef(stack);
      const description = count === 0 ? `removed the approval requirement of ${target}` : `required ${count} approvals for updates of ${target}`;
      await audited(deps, principal, { org: stack.org, event: 'approvals.changed', target, description }, () =>
        count === 0 ? store().deleteStackRequirement(stack.id) : store().putStackRequirement(stack.id, count),
      );
      return requirementOf(deps, stack);
    },

    async listRules(principal, org) {
      requireOrgAction(principal, org, 'read-approval-rules');
      return { rules: await store().listRules(org) };
    },

    async putRule(principal, org, input) {
      const rule = validateRule(input);
      requireOrgAction(principal, org, 'manage-approval-rules');
      const scope = [rule.stacks ? `stacks ${rule.stacks}` : '', rule.tag ? `tag ${rule.tag}` : ''].filter(Boolean).join(' and ') || 'every stack';
      const description = rule.required === 0 ? `removed the approval rule for ${scope}` : `required ${rule.required} approvals for ${scope}`;
      await audited(deps, principal, { org, event: 'approvals.rule-changed', target: org, description }, () =>
        rule.required === 0 ? store().deleteRule(org, rule) : store().putRule(org, rule),
      );
      return { rules: await store().listRules(org) };
    },

    async submitPlan(principal, ref, submission) {
      const upload = readPlanUpload(submission.plan);
      const programDigest = validateProgramDigest(submission.programDigest);
      const stack = await loadStack(deps, principal, ref, 'submit-plan');
      const target = formatStackRef(stack);
      const now = deps.now();
      const stale = staleness(upload, stack.version);
      if (stale) throw new PlanConflictError('plan_stale', `The plan is stale: ${stale}.`);
      const { required } = await requirementOf(deps, stack);
      const plan: PlanRecord = {
        id: newPlanId(now),
        stackId: stack.id,
        org: stack.org,
        author: principal.login,
        created: now,
        stackVersion: upload.stackVersion,
        programDigest,
        status: required === 0 ? 'approved' : 'pending',
        changes: changeCount(upload.operations),
        requiredApprovals: required,
        approvals: [],
        revision: 1,
      };
      const events = plan.status === 'pending' ? [planEvent('plan_approval_requested', stack, plan, principal.login, now)] : [];
      const description = `uploaded plan ${plan.id} of ${target} (${plan.changes} changes, ${required} approvals required)`;
      await audited(deps, principal, { org: stack.org, event: 'plan.uploaded', target, description }, async () => {
        // The document first: a record is never without it (a document without a record is unreachable and harmless).
        await deps.storage.checkpoints.put(planObject(stack.id, plan.id), Buffer.from(JSON.stringify(submission.plan), 'utf8'));
        await store().createPlan(plan, events);
      });
      return planView(plan);
    },

    async listPlans(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-approvals');
      return (await store().listPlans(stack.id, MAX_LIST)).map((plan) => planView(plan, stack.version));
    },

    async getPlan(principal, ref, id) {
      const stack = await loadStack(deps, principal, ref, 'read-approvals');
      const plan = await findPlan(stack, id);
      const document = JSON.parse(Buffer.from(await deps.storage.checkpoints.get(planObject(stack.id, plan.id))).toString('utf8')) as unknown;
      return { ...planView(plan, stack.version), plan: document, operations: readPlanUpload(document).operations };
    },

    approve: (principal, ref, id, comment) => judge(principal, ref, id, comment, true),
    reject: (principal, ref, id, comment) => judge(principal, ref, id, comment, false),
  };
}
