/**
 * `plan ls|show|approve|reject`: the update plans `preview --save-plan` uploaded to the service, and other users'
 * approvals of them (docs/plans.md). Approving and rejecting act at once: the command is the explicit act.
 */
import type { PlanDecision, PlanView } from '../backend/approvals-backend.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

/** `pending (1 of 2 approvals)`, `approved`, `rejected by bob`, `void: …`. */
export function planStatusText(plan: PlanView): string {
  switch (plan.status) {
    case 'pending':
      return `pending (${plan.approvals.length} of ${plan.requiredApprovals} approvals)`;
    case 'rejected':
      return plan.rejection ? `rejected by ${plan.rejection.user}` : 'rejected';
    case 'void':
      return plan.voidReason ? `void: ${plan.voidReason}` : 'void';
    default:
      return plan.status;
  }
}

const decisionText = (d: PlanDecision) => `${d.user} at ${d.at}${d.comment ? `: ${d.comment}` : ''}`;

export const planLs: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const plans = await backend.approvals().listPlans(ref);
  if (opts.json === true) return ctx.json(plans);
  if (plans.length === 0) return ctx.out(`No update plans for stack ${await ctx.displayName(ref)}. Upload one with \`stackyard preview --save-plan <file>\`.`);
  ctx.out(
    table(
      ['ID', 'STATUS', 'APPROVALS', 'AUTHOR', 'VERSION', 'CREATED'],
      plans.map((p) => [p.id, p.status, `${p.approvals.length}/${p.requiredApprovals}`, p.author, String(p.stackVersion), p.created]),
    ),
  );
};

export const planShow: CommandHandler = async (ctx, args, opts) => {
  const id = args[0]!;
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const plan = await backend.approvals().getPlan(ref, id);
  if (opts.json === true) return ctx.json(plan);
  const state = (await backend.exportDeployment(ref)) as { deployment?: { resources?: { urn: string; id?: string; inputs?: Record<string, unknown> }[] } };
  const { plannedChanges, planDiffText } = await import('../engine/display/diff/plan-diff-text.js');
  const lines = [
    `Plan ${plan.id}: ${planStatusText(plan)}`,
    `    made by ${plan.author} at ${plan.created}, at version ${plan.stackVersion} of the stack`,
    ...plan.approvals.map((a) => `    approved by ${decisionText(a)}`),
    ...(plan.rejection ? [`    rejected by ${decisionText(plan.rejection)}`] : []),
  ];
  const color = opts.color === 'always' || opts.color === 'raw' ? opts.color : 'never';
  const changes = plannedChanges(plan.operations, plan.plan, state.deployment?.resources ?? []);
  ctx.out(`${lines.join('\n')}\n\n${planDiffText(`Planned changes of ${await ctx.displayName(ref)}`, changes, color)}`);
};

function decide(decision: 'approve' | 'reject'): CommandHandler {
  return async (ctx, args, opts) => {
    const id = args[0]!;
    const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
    const message = typeof opts.message === 'string' ? opts.message : undefined;
    const plan = await backend.approvals().decide(ref, id, decision, message);
    ctx.out(`${decision === 'approve' ? 'Approved' : 'Rejected'} plan ${plan.id}: it is now ${planStatusText(plan)}.`);
  };
}

export const planApprove: CommandHandler = decide('approve');
export const planReject: CommandHandler = decide('reject');
