/**
 * Whether an update may start, as a pure function of the stack's requirement, the plan the start names and the
 * stack's version: start freely, start applying the plan, or refuse (voiding the plan when it can never apply).
 * Only non-dry-run `update`s are asked (docs/plans.md: refresh and destroy are not gated).
 */
import type { PlanRecord } from '../../ports/approval-store.js';
import type { PlanConflictReason } from './refusals.js';
import { staleness } from './plans.js';

/** The plan a start request names (`stackyardPlan`). */
export interface StartPlanRef {
  id: string;
  programDigest: string;
}

/** What the start check needs to know. */
export interface StartFacts {
  /** `org/project/stack`, for messages. */
  stackName: string;
  /** The update being started (a repeated start of the update that applied the plan is let through). */
  updateId?: string;
  /** The stack's effective requirement now. */
  required: number;
  /** The stack's current version (its last update). */
  stackVersion: number;
  given?: StartPlanRef;
  /** The plan `given` names, read from the store. */
  plan?: PlanRecord;
}

export type StartDecision =
  | { kind: 'free' }
  | { kind: 'apply'; plan: PlanRecord }
  | { kind: 'refuse'; reason: PlanConflictReason; message: string; voidReason?: string };

const HOW = "run 'stackyard preview --save-plan <file>' through the service, have";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The decision; `plan` must be the one `given` names (the caller answers 404 for an unknown id). */
export function decideStart(facts: StartFacts): StartDecision {
  const { given, plan, required, stackName } = facts;
  if (!given || !plan) {
    if (required === 0) return { kind: 'free' };
    return {
      kind: 'refuse',
      reason: 'approval_required',
      message:
        `Stack ${stackName} requires ${plural(required, 'approval')} before an update: ${HOW} ${plural(required, 'other user')} ` +
        "approve it ('stackyard plan approve <id>'), then run 'stackyard up --plan <id>'.",
    };
  }
  if (plan.status === 'applied' && facts.updateId !== undefined && plan.appliedUpdate === facts.updateId) return { kind: 'apply', plan };
  if (plan.status === 'applied') {
    return { kind: 'refuse', reason: 'plan_already_applied', message: `Plan ${plan.id} already started update ${plan.appliedUpdate ?? ''}`.trimEnd() + `: a plan starts one update; ${HOW} it approved again.` };
  }
  if (plan.status === 'rejected') {
    const by = plan.rejection ? ` by ${plan.rejection.user}` : '';
    return { kind: 'refuse', reason: 'plan_not_approved', message: `Plan ${plan.id} was rejected${by}: ${HOW} a new plan approved.` };
  }
  const stale = staleness(plan, facts.stackVersion);
  if (stale) return { kind: 'refuse', reason: 'plan_stale', message: `Plan ${plan.id} is stale: ${stale}.`, ...(plan.status === 'void' ? {} : { voidReason: stale }) };
  if (plan.status === 'void') {
    return { kind: 'refuse', reason: 'plan_program_changed', message: `Plan ${plan.id} is void (${plan.voidReason ?? 'no reason recorded'}): ${HOW} a new plan approved.` };
  }
  if (plan.programDigest !== given.programDigest) {
    const reason = 'the program changed since the plan was made';
    return { kind: 'refuse', reason: 'plan_program_changed', message: `Plan ${plan.id} is void: ${reason}; ${HOW} a new plan approved.`, voidReason: reason };
  }
  const needed = Math.max(required, plan.requiredApprovals);
  const missing = needed - plan.approvals.length;
  if (plan.status !== 'approved' || missing > 0) {
    const count = Math.max(missing, 1);
    return {
      kind: 'refuse',
      reason: 'plan_not_approved',
      message:
        `Plan ${plan.id} has ${plural(plan.approvals.length, 'approval')} of the ${needed} ${stackName} requires: ${plural(count, 'more approval')} needed ` +
        "from users with write on the stack other than its author ('stackyard plan approve <id>').",
    };
  }
  return { kind: 'apply', plan };
}
