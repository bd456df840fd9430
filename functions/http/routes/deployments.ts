import { InvalidInputError } from '../../../shared/core/errors.js';
import type { RouteContext } from '../context.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createDeploymentSchema, createSourceUploadSchema, deploymentSettingsPatchSchema, encryptDeploymentSecretSchema } from '../schemas-deployments.js';

/**
 * Pulumi Deployments' routes as the `pulumi` CLI's client calls them (pkg/backend/httpstate/client): a stack's
 * deployment settings and its runs (docs/deployments.md). They run on the updates function.
 */
const DEPLOYMENTS = '/api/stacks/{orgName}/{projectName}/{stackName}/deployments';
const SETTINGS = `${DEPLOYMENTS}/settings`;
const RUN = `${DEPLOYMENTS}/{deploymentId}`;
const SOURCES = `${DEPLOYMENTS}/sources`;
const MAX_LOG_LINES = 1000;
const INITIATOR = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A whole-number query parameter (`fallback` when absent), at most `max`; anything else is a 400 naming it. */
export function wholeQuery(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(text)) throw new InvalidInputError(`${name} must be a whole number, got '${text.slice(0, 20)}'.`);
  return Math.min(Number(text), max);
}

/**
 * Initiators only the service sets: a client's header cannot make its run look scheduled or pushed (those with a
 * `:`, `webhook:github`, cannot pass INITIATOR at all).
 */
const SERVICE_INITIATORS = new Set(['schedule', 'webhook']);

/**
 * `X-Pulumi-Deployment-Initiator` as pulumi's client sends it (`automation-api` from `pulumi deployment run` and
 * `up --remote`), recorded as the run's `initiator`; absent, malformed or one of the service's own: `api`.
 */
export function initiatorOf(ctx: Pick<RouteContext, 'request'>): string {
  const header = ctx.request.headers['x-pulumi-deployment-initiator']?.trim();
  return header && INITIATOR.test(header) && !SERVICE_INITIATORS.has(header.toLowerCase()) ? header : 'api';
}

export const deploymentRoutes: Route[] = [
  {
    method: 'GET',
    path: SETTINGS,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.deployments.getSettings(await ctx.principal(), ctx.stackRef()));
    },
  },
  {
    method: 'POST',
    path: SETTINGS,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const patch = validateBody(deploymentSettingsPatchSchema, await ctx.jsonBody(), 'deployment settings');
      return jsonResponse(200, await ctx.services.deployments.patchSettings(principal, ctx.stackRef(), patch));
    },
  },
  {
    method: 'DELETE',
    path: SETTINGS,
    group: 'updates',
    async handle(ctx) {
      await ctx.services.deployments.deleteSettings(await ctx.principal(), ctx.stackRef());
      return noContentResponse(204);
    },
  },
  {
    method: 'POST',
    path: `${SETTINGS}/encrypt`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(encryptDeploymentSecretSchema, await ctx.jsonBody(), 'encrypt request');
      return jsonResponse(200, await ctx.services.deployments.encryptSecret(principal, ctx.stackRef(), body.secret));
    },
  },
  {
    method: 'POST',
    path: DEPLOYMENTS,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createDeploymentSchema, await ctx.jsonBody(), 'create deployment request');
      return jsonResponse(200, await ctx.services.deployments.createRun(principal, ctx.stackRef(), body, initiatorOf(ctx)));
    },
  },
  {
    method: 'POST',
    path: SOURCES,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createSourceUploadSchema, await ctx.jsonBody(), 'source upload request');
      return jsonResponse(200, await ctx.services.deployments.startSourceUpload(principal, ctx.stackRef(), body));
    },
  },
  {
    // Where the storage offers no direct upload (local): the caller's own token, `update` on the stack.
    method: 'PUT',
    path: `${SOURCES}/{archiveId}`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      await ctx.services.deployments.uploadSource(principal, ctx.stackRef(), ctx.params.archiveId!, await ctx.rawBody());
      return noContentResponse(204);
    },
  },
  {
    method: 'GET',
    path: DEPLOYMENTS,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const pageSize = wholeQuery(ctx.request.query, 'pageSize', 100, 100);
      const deployments = await ctx.services.deployments.listRuns(principal, ctx.stackRef(), pageSize);
      return jsonResponse(200, { deployments, itemsPerPage: pageSize, total: deployments.length });
    },
  },
  {
    method: 'GET',
    path: RUN,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.deployments.getRun(await ctx.principal(), ctx.stackRef(), ctx.params.deploymentId!));
    },
  },
  {
    method: 'POST',
    path: `${RUN}/cancel`,
    group: 'updates',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.deployments.cancelRun(await ctx.principal(), ctx.stackRef(), ctx.params.deploymentId!));
    },
  },
  {
    method: 'GET',
    path: `${RUN}/logs`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const query = ctx.request.query;
      const token = query.get('continuationToken');
      const offset = token ? wholeQuery(new URLSearchParams({ offset: token }), 'offset', 0, 1e9) : wholeQuery(query, 'offset', 0, 1e9);
      const count = wholeQuery(query, 'count', MAX_LOG_LINES, MAX_LOG_LINES);
      return jsonResponse(200, await ctx.services.deployments.readLogs(principal, ctx.stackRef(), ctx.params.deploymentId!, offset, count));
    },
  },
  {
    method: 'GET',
    path: `${RUN}/updates`,
    group: 'updates',
    async handle(ctx) {
      const run = await ctx.services.deployments.getRun(await ctx.principal(), ctx.stackRef(), ctx.params.deploymentId!);
      return jsonResponse(
        200,
        run.updates.map((update) => ({ updateID: update.updateID, version: update.version, latestVersion: update.version })),
      );
    },
  },
];
