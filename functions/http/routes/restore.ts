import type { UpdateKind } from '../../../shared/ports/update-store.js';
import { validateBody } from '../decode.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import { historyEntrySchema, rollbackSchema } from '../schemas-stacks.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';

/**
 * Stackyard's own routes for restoring state (not part of the Pulumi API): `stack rollback` and the history entries
 * `stackyard migrate` carries over. Both write the stack like import does.
 */
export const restoreRoutes: Route[] = [
  {
    method: 'POST',
    path: `${STACK}/rollback`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const { version } = validateBody(rollbackSchema, await ctx.jsonBody(), 'rollback request ({"version": <n>})');
      return jsonResponse(200, await ctx.services.restore.rollback(principal, ref, version));
    },
  },
  {
    method: 'POST',
    path: `${STACK}/history`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(historyEntrySchema, await ctx.jsonBody(), 'history entry');
      const deployment = body.deployment
        ? { version: body.deployment.version, ...(body.deployment.features ? { features: body.deployment.features } : {}), deployment: body.deployment.deployment }
        : undefined;
      const result = await ctx.services.restore.appendHistory(principal, ref, {
        version: body.version,
        kind: body.kind as UpdateKind,
        result: body.result,
        startedAt: body.startTime * 1000,
        endedAt: body.endTime * 1000,
        ...(body.message ? { message: body.message } : {}),
        environment: body.environment ?? {},
        config: body.config ?? {},
        ...(body.resourceChanges ? { resourceChanges: body.resourceChanges } : {}),
        ...(deployment ? { deployment } : {}),
      });
      return jsonResponse(200, result);
    },
  },
];
