import type { RouteContext } from '../context.js';
import { validateBody } from '../decode.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import { approvalRuleSchema, planVerdictSchema, stackApprovalsSchema, submitPlanSchema } from '../schemas-approvals.js';

/**
 * Approvals on the service (docs/plans.md): a stack's requirement, its organization's rules, plans uploaded for
 * approval and their verdicts. They run on the updates function, whose `start` applies the same rules.
 */
const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
const PLANS = `${STACK}/plans`;
const PLAN = `${PLANS}/{planId}`;

function verdictRoute(verdict: 'approve' | 'reject'): Route {
  return {
    method: 'POST',
    path: `${PLAN}/${verdict}`,
    group: 'updates',
    async handle(ctx: RouteContext) {
      const principal = await ctx.principal();
      const body = validateBody(planVerdictSchema, await ctx.jsonBody(), `${verdict} request`);
      const view = await ctx.services.approvals[verdict](principal, ctx.stackRef(), ctx.params.planId!, body?.comment ?? undefined);
      return jsonResponse(200, view);
    },
  };
}

export const approvalRoutes: Route[] = [
  {
    method: 'GET',
    path: `${STACK}/approvals`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.approvals.getRequirement(await ctx.principal(), ctx.stackRef()));
    },
  },
  {
    method: 'PUT',
    path: `${STACK}/approvals`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(stackApprovalsSchema, await ctx.jsonBody(), 'approvals setting');
      return jsonResponse(200, await ctx.services.approvals.setRequirement(principal, ctx.stackRef(), body.required));
    },
  },
  {
    method: 'GET',
    path: '/api/orgs/{orgName}/approvals',
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.approvals.listRules(await ctx.principal(), ctx.params.orgName!));
    },
  },
  {
    method: 'PUT',
    path: '/api/orgs/{orgName}/approvals',
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(approvalRuleSchema, await ctx.jsonBody(), 'approval rule');
      const rule = { required: body.required, stacks: body.stacks ?? undefined, tag: body.tag ?? undefined };
      return jsonResponse(200, await ctx.services.approvals.putRule(principal, ctx.params.orgName!, rule));
    },
  },
  {
    method: 'POST',
    path: PLANS,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(submitPlanSchema, await ctx.jsonBody(), 'plan upload');
      return jsonResponse(201, await ctx.services.approvals.submitPlan(principal, ctx.stackRef(), body));
    },
  },
  {
    method: 'GET',
    path: PLANS,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, { plans: await ctx.services.approvals.listPlans(await ctx.principal(), ctx.stackRef()) });
    },
  },
  {
    method: 'GET',
    path: PLAN,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.approvals.getPlan(await ctx.principal(), ctx.stackRef(), ctx.params.planId!));
    },
  },
  verdictRoute('approve'),
  verdictRoute('reject'),
];
