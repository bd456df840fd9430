import { InvalidInputError, NotFoundError } from '../../../shared/core/errors.js';
import { deliveryView } from '../../../shared/core/hooks/delivery-view.js';
import type { HookTarget } from '../../../shared/core/hooks/hook-service.js';
import type { RouteContext } from '../context.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse } from '../respond.js';
import type { Route } from '../router.js';
import { addHookSchema } from '../schemas-updates.js';

/**
 * Hooks (docs/hooks.md), modelled on Pulumi Cloud's webhooks API: the same routes for an organization's hooks and
 * for one stack's. They run on the stacks function: ping and redeliver make one attempt inside the request (at most
 * the 10 s delivery timeout), well within its 28 s.
 */
const ORG_HOOKS = '/api/orgs/{orgName}/hooks';
const STACK_HOOKS = '/api/stacks/{orgName}/{projectName}/{stackName}/hooks';

type TargetOf = (ctx: RouteContext) => HookTarget;

const orgTarget: TargetOf = (ctx) => ({ org: ctx.params.orgName! });
const stackTarget: TargetOf = (ctx) => ({ stack: ctx.stackRef() });

/** `?limit=`: the service checks the range; here only that it is a number. */
function limitQuery(query: URLSearchParams): number | undefined {
  const text = query.get('limit');
  if (text === null || text === '') return undefined;
  if (!/^[0-9]{1,4}$/.test(text)) throw new InvalidInputError(`limit must be a whole number, got '${text.slice(0, 20)}'.`);
  return Number(text);
}

function hookRoutes(base: string, targetOf: TargetOf): Route[] {
  const one = `${base}/{hookName}`;
  return [
    {
      method: 'GET',
      path: base,
      group: 'updates',
      async handle(ctx) {
        const hooks = await ctx.services.hooks.list(await ctx.principal(), targetOf(ctx));
        return jsonResponse(200, { hooks });
      },
    },
    {
      method: 'POST',
      path: base,
      group: 'updates',
      async handle(ctx) {
        const principal = await ctx.principal();
        const target = targetOf(ctx);
        const body = validateBody(addHookSchema, await ctx.jsonBody(), 'add hook request');
        const hook = await ctx.services.hooks.add(principal, target, { ...body, events: body.events ?? undefined });
        return jsonResponse(201, hook);
      },
    },
    {
      method: 'GET',
      path: one,
      group: 'updates',
      async handle(ctx) {
        const target = targetOf(ctx);
        const name = ctx.params.hookName!;
        // A stack's listing also shows the organization's hooks that see it; by name, only the stack's own.
        const hook = (await ctx.services.hooks.list(await ctx.principal(), target)).find(
          (candidate) => candidate.name === name && ('stack' in target) === (candidate.stack !== undefined),
        );
        if (!hook) throw new NotFoundError(`Hook '${name.slice(0, 64)}' not found: list the hooks here with 'stackyard hook ls'.`);
        return jsonResponse(200, hook);
      },
    },
    {
      method: 'DELETE',
      path: one,
      group: 'updates',
      async handle(ctx) {
        await ctx.services.hooks.remove(await ctx.principal(), targetOf(ctx), ctx.params.hookName!);
        return noContentResponse(204);
      },
    },
    {
      method: 'GET',
      path: `${one}/deliveries`,
      group: 'updates',
      async handle(ctx) {
        const principal = await ctx.principal();
        const limit = limitQuery(ctx.request.query);
        const deliveries = await ctx.services.hooks.deliveries(principal, targetOf(ctx), ctx.params.hookName!, limit);
        return jsonResponse(200, { deliveries: deliveries.map(deliveryView) });
      },
    },
    {
      method: 'POST',
      path: `${one}/ping`,
      group: 'updates',
      async handle(ctx) {
        const delivery = await ctx.services.hooks.ping(await ctx.principal(), targetOf(ctx), ctx.params.hookName!);
        return jsonResponse(200, deliveryView(delivery));
      },
    },
    {
      method: 'POST',
      path: `${one}/deliveries/{deliveryId}/redeliver`,
      group: 'updates',
      async handle(ctx) {
        const principal = await ctx.principal();
        const delivery = await ctx.services.hooks.redeliver(principal, targetOf(ctx), ctx.params.hookName!, ctx.params.deliveryId!);
        return jsonResponse(200, deliveryView(delivery));
      },
    },
  ];
}

export const hookApiRoutes: Route[] = [...hookRoutes(ORG_HOOKS, orgTarget), ...hookRoutes(STACK_HOOKS, stackTarget)];
