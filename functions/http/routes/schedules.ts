import type { ScheduleKind } from '../../../shared/ports/schedule-store.js';
import type { RouteContext } from '../context.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse } from '../respond.js';
import type { Route } from '../router.js';
import { driftScheduleSchema, scheduleSchema, ttlScheduleSchema } from '../schemas-deployments.js';

/**
 * Scheduled deployments as the `pulumi` CLI's client calls them (`ListStackSchedules`, `CreateStack…Schedule`,
 * `UpdateStack…Schedule`, `DeleteStackSchedule`), plus pause and resume from Pulumi Cloud's REST reference
 * (docs/deployments.md, "Schedules"). They run on the updates function.
 */
const DEPLOYMENTS = '/api/stacks/{orgName}/{projectName}/{stackName}/deployments';
const SCHEDULES = `${DEPLOYMENTS}/schedules`;
const SCHEDULE = `${SCHEDULES}/{scheduleId}`;
const KINDS = [
  { kind: 'raw', base: SCHEDULES, schema: scheduleSchema, what: 'schedule request' },
  { kind: 'drift', base: `${DEPLOYMENTS}/drift/schedules`, schema: driftScheduleSchema, what: 'drift schedule request' },
  { kind: 'ttl', base: `${DEPLOYMENTS}/ttl/schedules`, schema: ttlScheduleSchema, what: 'TTL schedule request' },
] as const;

async function bodyOf(ctx: RouteContext, entry: (typeof KINDS)[number]) {
  return validateBody(entry.schema as typeof scheduleSchema, await ctx.jsonBody(), entry.what);
}

const writeRoutes: Route[] = KINDS.flatMap((entry) => [
  {
    method: 'POST',
    path: entry.base,
    group: 'updates',
    async handle(ctx: RouteContext) {
      const principal = await ctx.principal();
      return jsonResponse(200, await ctx.services.schedules.create(principal, ctx.stackRef(), entry.kind as ScheduleKind, await bodyOf(ctx, entry)));
    },
  },
  {
    method: 'POST',
    path: `${entry.base}/{scheduleId}`,
    group: 'updates',
    async handle(ctx: RouteContext) {
      const principal = await ctx.principal();
      const body = await bodyOf(ctx, entry);
      return jsonResponse(200, await ctx.services.schedules.update(principal, ctx.stackRef(), entry.kind as ScheduleKind, ctx.params.scheduleId!, body));
    },
  },
]);

export const scheduleRoutes: Route[] = [
  {
    method: 'GET',
    path: SCHEDULES,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, { schedules: await ctx.services.schedules.list(await ctx.principal(), ctx.stackRef()) });
    },
  },
  {
    method: 'GET',
    path: SCHEDULE,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.schedules.get(await ctx.principal(), ctx.stackRef(), ctx.params.scheduleId!));
    },
  },
  {
    method: 'DELETE',
    path: SCHEDULE,
    group: 'updates',
    async handle(ctx) {
      await ctx.services.schedules.remove(await ctx.principal(), ctx.stackRef(), ctx.params.scheduleId!);
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${SCHEDULE}/pause`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.schedules.setPaused(await ctx.principal(), ctx.stackRef(), ctx.params.scheduleId!, true));
    },
  },
  {
    method: 'POST',
    path: `${SCHEDULE}/resume`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.schedules.setPaused(await ctx.principal(), ctx.stackRef(), ctx.params.scheduleId!, false));
    },
  },
  ...writeRoutes,
];
