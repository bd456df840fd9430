import { definitionText } from '../../../shared/core/environments/definitions.js';
import { InvalidInputError } from '../../../shared/core/errors.js';
import type { EnvironmentRef } from '../../../shared/core/names.js';
import type { RouteContext } from '../context.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { cloneEnvironmentSchema, createEnvironmentSchema } from '../schemas-environments.js';
import { booleanQuery, goDurationMs } from './environment-query.js';
import { ESC, PREVIEW, REVISION_HEADER, checkResponse, escBase, previewBase, versionedRoutes, type EnvironmentRoutesBase } from './environment-kit.js';
import { environmentVersionRoutes } from './environment-versions.js';

/**
 * Environments, wire-compatible with Pulumi ESC's API (environment-kit.ts says how): the organization's routes, and
 * each environment's definition, open sessions and clone; versions, tags and permissions in environment-versions.ts.
 */

/** Every route of one environment: its definition, open sessions, clone, and its versions (environment-versions.ts). */
function environmentRoutes(family: EnvironmentRoutesBase): Route[] {
  const { base, refOf } = family;
  return [
    ...versionedRoutes(family, base, () => undefined),
    {
      method: 'PATCH',
      path: base,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const yaml = definitionText(await ctx.rawBody());
        // ESC's client sends the etag it read back in `ETag`; HTTP clients send it in `If-Match`.
        const etag = ctx.request.headers['if-match'] ?? ctx.request.headers.etag;
        const saved = await ctx.services.environments.update(principal, refOf(ctx), yaml, etag || undefined);
        const response = jsonResponse(200, saved.diagnostics.length > 0 ? { diagnostics: saved.diagnostics } : {});
        response.headers[REVISION_HEADER] = String(saved.revision);
        return response;
      },
    },
    {
      method: 'DELETE',
      path: base,
      group: 'secrets',
      async handle(ctx) {
        await ctx.services.environments.delete(await ctx.principal(), refOf(ctx));
        return okResponse();
      },
    },
    {
      method: 'GET',
      path: `${base}/open/{openSessionId}`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const property = ctx.request.query.get('property') ?? undefined;
        return jsonResponse(200, await ctx.services.environments.readOpen(principal, refOf(ctx), ctx.params.openSessionId!, property));
      },
    },
    {
      method: 'POST',
      path: `${base}/clone`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const body = validateBody(cloneEnvironmentSchema, await ctx.jsonBody(), 'clone request');
        if (body.preserveEnvironmentTags) {
          throw new InvalidInputError('Environment tags are not supported by Stackyard yet: clone without preserveEnvironmentTags.');
        }
        await ctx.services.environments.clone(principal, refOf(ctx), body);
        return noContentResponse(204);
      },
    },
    ...environmentVersionRoutes(family),
  ];
}

/** The organization's routes: list, create, check and open a definition that is not stored (anonymous, ESC's `yaml/…`). */
function organizationRoutes(prefix: string, createOf: (ctx: RouteContext) => Promise<EnvironmentRef>, createPath: string): Route[] {
  return [
    {
      method: 'GET',
      path: `${prefix}/{orgName}`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const token = ctx.request.query.get('continuationToken') || undefined;
        const page = await ctx.services.environments.list(principal, ctx.params.orgName!, token);
        return jsonResponse(200, environmentList(page));
      },
    },
    {
      method: 'POST',
      path: createPath,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        await ctx.services.environments.create(principal, await createOf(ctx));
        return okResponse();
      },
    },
    {
      method: 'POST',
      path: `${prefix}/{orgName}/yaml/check`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const yaml = definitionText(await ctx.rawBody());
        const showSecrets = booleanQuery(ctx.request.query, 'showSecrets');
        return checkResponse(await ctx.services.environments.checkYaml(principal, ctx.params.orgName!, yaml, showSecrets));
      },
    },
    {
      method: 'POST',
      path: `${prefix}/{orgName}/yaml/open`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const yaml = definitionText(await ctx.rawBody());
        const duration = goDurationMs(ctx.request.query.get('duration'));
        // `pulumi up --override-env a=b` swaps imports; not served yet, and refused rather than ignored.
        if (ctx.request.query.get('environmentOverrides')) {
          throw new InvalidInputError('Environment overrides (--override-env) are not supported by Stackyard yet: edit the stack\'s environment: list instead.');
        }
        return jsonResponse(200, await ctx.services.environments.openYaml(principal, ctx.params.orgName!, yaml, duration));
      },
    },
    {
      method: 'GET',
      path: `${prefix}/{orgName}/yaml/open/{openSessionId}`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        return jsonResponse(200, await ctx.services.environments.readYamlOpen(principal, ctx.params.orgName!, ctx.params.openSessionId!));
      },
    },
  ];
}

/** ESC's ListEnvironmentsResponse. */
function environmentList(page: { environments: { org: string; project: string; name: string; createdAt: number; modifiedAt: number }[]; nextToken?: string }) {
  return {
    environments: page.environments.map((e) => ({
      organization: e.org,
      project: e.project,
      name: e.name,
      created: new Date(e.createdAt).toISOString(),
      modified: new Date(e.modifiedAt).toISOString(),
    })),
    ...(page.nextToken ? { nextToken: page.nextToken } : {}),
  };
}

export const environmentApiRoutes: Route[] = [
  {
    method: 'GET',
    path: ESC,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const token = ctx.request.query.get('continuationToken') || undefined;
      return jsonResponse(200, environmentList(await ctx.services.environments.list(principal, undefined, token)));
    },
  },
  ...organizationRoutes(
    ESC,
    async (ctx) => {
      const body = validateBody(createEnvironmentSchema, await ctx.jsonBody(), 'create environment request');
      return { org: ctx.params.orgName!, project: body.project, name: body.name };
    },
    `${ESC}/{orgName}`,
  ),
  ...organizationRoutes(PREVIEW, async (ctx) => previewBase.refOf(ctx), `${PREVIEW}/{orgName}/{envName}`),
  ...environmentRoutes(escBase),
  ...environmentRoutes(previewBase),
];
