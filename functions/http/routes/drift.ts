import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import { wholeQuery } from './deployments.js';

/**
 * Drift detection's routes as the `pulumi` CLI's client calls them (`ListDriftRuns`, `GetDriftStatus`): a stack's
 * drift runs and whether it has drifted (docs/deployments.md, "Drift"). They run on the updates function.
 */
const DRIFT = '/api/stacks/{orgName}/{projectName}/{stackName}/drift';

export const driftRoutes: Route[] = [
  {
    method: 'GET',
    path: `${DRIFT}/runs`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const page = wholeQuery(ctx.request.query, 'page', 1, 1e9);
      const pageSize = wholeQuery(ctx.request.query, 'pageSize', 10, 1e9);
      return jsonResponse(200, await ctx.services.drift.listRuns(principal, ctx.stackRef(), page, pageSize));
    },
  },
  {
    method: 'GET',
    path: `${DRIFT}/status`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.drift.status(await ctx.principal(), ctx.stackRef()));
    },
  },
];
