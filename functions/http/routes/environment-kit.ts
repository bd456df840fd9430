import type { EnvironmentVersion } from '../../../shared/core/environments/types.js';
import { DiagnosticsError } from '../../../shared/core/errors.js';
import type { EnvironmentRef } from '../../../shared/core/names.js';
import type { RouteContext } from '../context.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import { booleanQuery, goDurationMs } from './environment-query.js';

/**
 * Environments, wire-compatible with Pulumi ESC's API (the esc CLI's client, `cmd/esc/cli/client/client.go`): under
 * `/api/esc/environments/{org}/{project}/{env}`, and the older `/api/preview/environments/{org}/{env}` (project
 * `default`) some clients still use. Definitions travel as raw YAML; a definition with errors is answered 400 with
 * ESC's `diagnostics`. They run on the secrets function: like its routes, they seal and open secrets under KMS keys.
 */
export const ESC = '/api/esc/environments';
export const PREVIEW = '/api/preview/environments';

/** ESC's header with the revision of a definition read or saved. */
export const REVISION_HEADER = 'pulumi-esc-revision';
/** The project of an environment named without one (the preview routes, `DefaultProject` in ESC's client). */
const DEFAULT_PROJECT = 'default';

/** How a family of routes names the environment: with a project segment, or without (the preview routes). */
export interface EnvironmentRoutesBase {
  base: string;
  refOf(ctx: RouteContext): EnvironmentRef;
}

export const escBase: EnvironmentRoutesBase = {
  base: `${ESC}/{orgName}/{projectName}/{envName}`,
  refOf: (ctx) => ({ org: ctx.params.orgName!, project: ctx.params.projectName!, name: ctx.params.envName! }),
};

export const previewBase: EnvironmentRoutesBase = {
  base: `${PREVIEW}/{orgName}/{envName}`,
  refOf: (ctx) => ({ org: ctx.params.orgName!, project: DEFAULT_PROJECT, name: ctx.params.envName! }),
};

/** A definition as ESC answers it: the YAML itself, with its etag and revision in headers. */
export function definitionResponse(view: { yaml: string; etag: string; revision: number }) {
  return {
    status: 200,
    headers: { 'content-type': 'application/x-yaml', etag: view.etag, [REVISION_HEADER]: String(view.revision) },
    body: Buffer.from(view.yaml, 'utf8'),
  };
}

/** `check` answers the checked environment; with errors, 400 with it and the diagnostics (ESC's CheckEnvironment). */
export function checkResponse(result: { environment?: object; diagnostics: { severity: string }[] }) {
  if (result.diagnostics.some((d) => d.severity === 'error')) {
    throw new DiagnosticsError('The environment has errors.', result.diagnostics);
  }
  return jsonResponse(200, { ...(result.environment ?? {}), ...(result.diagnostics.length > 0 ? { diagnostics: result.diagnostics } : {}) });
}

/** The routes that read, open or check one version of an environment (the latest at `base`, or `base/versions/{version}`). */
export function versionedRoutes(family: EnvironmentRoutesBase, path: string, versionOf: (ctx: RouteContext) => EnvironmentVersion): Route[] {
  return [
    {
      method: 'GET',
      path,
      group: 'secrets',
      async handle(ctx) {
        return definitionResponse(await ctx.services.environments.getDefinition(await ctx.principal(), family.refOf(ctx), versionOf(ctx), false));
      },
    },
    {
      method: 'GET',
      path: `${path}/decrypt`,
      group: 'secrets',
      async handle(ctx) {
        return definitionResponse(await ctx.services.environments.getDefinition(await ctx.principal(), family.refOf(ctx), versionOf(ctx), true));
      },
    },
    {
      method: 'POST',
      path: `${path}/open`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const duration = goDurationMs(ctx.request.query.get('duration'));
        return jsonResponse(200, await ctx.services.environments.open(principal, family.refOf(ctx), versionOf(ctx), duration));
      },
    },
    {
      method: 'POST',
      path: `${path}/check`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const showSecrets = booleanQuery(ctx.request.query, 'showSecrets');
        return checkResponse(await ctx.services.environments.check(principal, family.refOf(ctx), versionOf(ctx), showSecrets));
      },
    },
  ];
}
