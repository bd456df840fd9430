import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import type { RouteContext } from '../context.js';
import { integerQuery } from './environment-query.js';

/**
 * The web console's reads of environments beyond ESC's routes (docs/console.md): an organization's environments with
 * their latest revision and its author, two revisions compared with their secrets redacted, and one environment's
 * audit entries. Stackyard's own, under `/api/console/`, so they can never collide with a route ESC adds; they run on
 * the secrets function with ESC's routes and need `read` on the environment, as ESC's reads do.
 */
const BASE = '/api/console/environments/{orgName}/{projectName}/{envName}';

const refOf = (ctx: RouteContext) => ({ org: ctx.params.orgName!, project: ctx.params.projectName!, name: ctx.params.envName! });
const textQuery = (ctx: RouteContext, name: string) => ctx.request.query.get(name) || undefined;

export const environmentConsoleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/console/environments/{orgName}',
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, await ctx.services.environments.overview(principal, ctx.params.orgName!, textQuery(ctx, 'continuationToken')));
    },
  },
  {
    method: 'GET',
    path: `${BASE}/diff`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, await ctx.services.environments.diff(principal, refOf(ctx), textQuery(ctx, 'from'), textQuery(ctx, 'to')));
    },
  },
  {
    method: 'GET',
    path: `${BASE}/audit`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const page = { limit: integerQuery(ctx.request.query, 'pageSize'), continuationToken: textQuery(ctx, 'continuationToken') };
      return jsonResponse(200, await ctx.services.environments.activity(principal, refOf(ctx), page));
    },
  },
];
