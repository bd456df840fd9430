import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

/**
 * Pulumi Cloud's policy results API (`ListPolicyViolationsV2`): the violations each stack's latest update reported,
 * read from the per-stack records the service keeps at update completion (docs/policy.md, "Policy results").
 */
export const POLICY_VIOLATIONS = '/api/orgs/{orgName}/policyresults/violationsv2';

export const policyResultRoutes: Route[] = [
  {
    method: 'GET',
    path: POLICY_VIOLATIONS,
    group: 'stacks',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.policies.listViolations(await ctx.principal(), ctx.params.orgName!));
    },
  },
];
