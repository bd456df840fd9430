/**
 * The approvals check of `updates.start` (shared/core/updates/starting.ts): decided by reads before the gates and the
 * lease (a refused start changes nothing but voiding a plan that can never apply, and is in the audit log as
 * `plan.refused`); the plan is claimed for the update after the lease is granted, by one conditional write, so of
 * two starts naming one plan exactly one applies it.
 */
import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { PlanRecord } from '../../ports/approval-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { auditRefusal } from '../audit/audit.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { applyPlan, isPlanId, validateProgramDigest, voidPlan } from './plans.js';
import { PlanConflictError } from './refusals.js';
import { requirementOf } from './requirement.js';
import { decideStart, type StartPlanRef } from './start-decision.js';

export type { StartPlanRef } from './start-decision.js';

/** Whether an update of this kind is gated: the non-dry-run `update` (`pulumi up`), the one a plan is made for. */
export function isGated(update: Pick<UpdateRecord, 'kind' | 'dryRun'>): boolean {
  return update.kind === 'update' && !update.dryRun;
}

async function readPlan(deps: ServiceDeps, stack: StackRecord, given: StartPlanRef | undefined): Promise<PlanRecord | undefined> {
  if (!given) return undefined;
  const plan = isPlanId(given.id) ? await deps.storage.approvals.getPlan(stack.id, given.id) : undefined;
  if (!plan) throw new NotFoundError(`Plan '${given.id.slice(0, 64)}' not found on ${formatStackRef(stack)}: list the stack's plans with 'stackyard plan ls'.`);
  return plan;
}

/**
 * The plan the update must apply (undefined: it starts as it would without approvals), or the refusal. A refusal
 * that makes the plan useless (stale, program changed) voids it first.
 */
export async function checkApprovals(
  deps: ServiceDeps,
  principal: Principal,
  stack: StackRecord,
  update: UpdateRecord,
  given: StartPlanRef | undefined,
): Promise<PlanRecord | undefined> {
  if (!isGated(update)) return undefined;
  if (given) validateProgramDigest(given.programDigest);
  const [requirement, plan] = await Promise.all([requirementOf(deps, stack), readPlan(deps, stack, given)]);
  const stackName = formatStackRef(stack);
  const decision = decideStart({ stackName, updateId: update.id, required: requirement.required, stackVersion: stack.version, given, plan });
  if (decision.kind === 'free') return undefined;
  if (decision.kind === 'apply') return decision.plan;
  if (decision.voidReason && plan) {
    // Best effort: a lost race means someone else moved the plan on, and this start is refused either way.
    await deps.storage.approvals.updatePlan(voidPlan(plan, decision.voidReason), plan.revision).catch(() => undefined);
  }
  const described = plan ? ` with plan ${plan.id}` : '';
  await auditRefusal(deps, principal, {
    org: stack.org,
    event: 'plan.refused',
    target: stackName,
    description: `update ${update.id} of ${stackName}${described} refused (${decision.reason}): ${decision.message}`.slice(0, 1000),
  });
  throw new PlanConflictError(decision.reason, decision.message);
}

/** Marks `plan` applied by `updateId`: one conditional write; a plan another start applied first refuses this one. */
export async function claimPlan(deps: ServiceDeps, plan: PlanRecord, updateId: string): Promise<void> {
  // A start the client repeats (its answer was lost) finds the plan already claimed by this very update.
  if (plan.status === 'applied' && plan.appliedUpdate === updateId) return;
  try {
    await deps.storage.approvals.updatePlan(applyPlan(plan, updateId), plan.revision);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const now = await deps.storage.approvals.getPlan(plan.stackId, plan.id);
    const by = now?.appliedUpdate ? ` started update ${now.appliedUpdate}` : ` is ${now?.status ?? 'gone'}`;
    throw new PlanConflictError('plan_already_applied', `Plan ${plan.id}${by} first: a plan starts one update; make and approve a new plan.`);
  }
}
