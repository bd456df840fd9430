import type { Route } from '../router.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse } from '../respond.js';
import { runnerEnvironmentsSchema, runnerFinishSchema, runnerLogSchema } from '../schemas-deployments.js';

/**
 * A run's runner talking to the service with the run's own token (a CodeBuild build on AWS holds nothing else):
 * what the run needs, the claim's heartbeat, the log, cancelling its updates, the result (docs/deployments.md,
 * "On AWS"). Stackyard's own routes; they run on the updates function.
 */
export const RUNNER_RUN = '/api/deployments/runner/{deploymentId}';

export const deploymentRunnerRoutes: Route[] = [
  {
    method: 'GET',
    path: RUNNER_RUN,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.runAgent.brief(await ctx.principal(), ctx.params.deploymentId!));
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/heartbeat`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.runAgent.heartbeat(await ctx.principal(), ctx.params.deploymentId!));
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/logs`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(runnerLogSchema, await ctx.jsonBody(), 'runner log lines');
      await ctx.services.runAgent.log(principal, ctx.params.deploymentId!, body.lines);
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/cancel-updates`,
    group: 'updates',
    async handle(ctx) {
      await ctx.services.runAgent.cancelUpdates(await ctx.principal(), ctx.params.deploymentId!);
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/drift-found`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.runAgent.driftFound(await ctx.principal(), ctx.params.deploymentId!));
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/remediation`,
    group: 'updates',
    async handle(ctx) {
      await ctx.services.runAgent.recordRemediation(await ctx.principal(), ctx.params.deploymentId!);
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/remove-stack`,
    group: 'updates',
    async handle(ctx) {
      await ctx.services.runAgent.removeStack(await ctx.principal(), ctx.params.deploymentId!);
      return noContentResponse(204);
    },
  },
  {
    method: 'GET',
    path: `${RUNNER_RUN}/source`,
    group: 'updates',
    async handle(ctx) {
      const archive = await ctx.services.runAgent.sourceArchive(await ctx.principal(), ctx.params.deploymentId!);
      return { status: 200, headers: { 'content-type': 'application/gzip' }, body: Buffer.from(archive) };
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/environments`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(runnerEnvironmentsSchema, await ctx.jsonBody(), 'the stack\'s environments');
      await ctx.services.runAgent.declareEnvironments(principal, ctx.params.deploymentId!, body.environments);
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${RUNNER_RUN}/finish`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(runnerFinishSchema, await ctx.jsonBody(), 'run result');
      await ctx.services.runAgent.finish(principal, ctx.params.deploymentId!, body);
      return noContentResponse(204);
    },
  },
];
