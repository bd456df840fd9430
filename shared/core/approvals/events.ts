/**
 * The hook events of plans (`plan_approval_requested`, `plan_approved`, `plan_rejected`), in the shape of the other
 * stack events (Pulumi Cloud's field names plus `event`), written with the plan's own write through the outbox.
 */
import type { HookEventKind, OutboxEvent } from '../../ports/hook-store.js';
import type { PlanRecord } from '../../ports/approval-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { newEventId } from '../hooks/outbox-events.js';

/** The plan events hooks can subscribe to. */
export type PlanEventKind = Extract<HookEventKind, 'plan_approval_requested' | 'plan_approved' | 'plan_rejected'>;

/** One plan event: who acted, the stack, and the plan's id, status and approvals so far (never its contents). */
export function planEvent(
  kind: PlanEventKind,
  stack: Pick<StackRecord, 'id' | 'org' | 'project' | 'stack'>,
  plan: PlanRecord,
  actor: string,
  now: number,
): OutboxEvent {
  const payload = {
    event: kind,
    user: { name: actor, githubLogin: actor },
    organization: { name: stack.org, githubLogin: stack.org },
    projectName: stack.project,
    stackName: stack.stack,
    plan: {
      id: plan.id,
      author: plan.author,
      status: plan.status,
      stackVersion: plan.stackVersion,
      requiredApprovals: plan.requiredApprovals,
      approvals: plan.approvals.map((approval) => approval.user),
      resourceChanges: plan.changes,
    },
  };
  return { id: newEventId(now), kind, org: stack.org, stackId: stack.id, occurredAt: now, payload };
}
