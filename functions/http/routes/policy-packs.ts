import type { CreatePolicyPackRequest } from '../../../shared/core/policy/index.js';
import { UPLOAD_TICKET_HEADER } from '../../../shared/core/policy/pack-service.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createPolicyPackSchema } from '../schemas-policy.js';
import { withoutNulls } from './policy-wire.js';

/**
 * Policy packs as the `pulumi` CLI's client calls them (pkg/backend/httpstate/client: PublishPolicyPack,
 * ListPolicyPacks, GetPolicyPackSchema, RemovePolicyPack[ByVersion]) plus where a stack's required packs are read and
 * fetched (GetStackPolicyPacks, DownloadPolicyPack). Publishing is three calls: create (upload URI and headers), the
 * upload, complete. Design: docs/policy.md, "Packs on the service".
 */
const PACKS = '/api/orgs/{orgName}/policypacks';
const PACK = `${PACKS}/{policyPackName}`;
const VERSION = `${PACK}/versions/{versionTag}`;

export const policyPackRoutes: Route[] = [
  {
    method: 'POST',
    path: PACKS,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = withoutNulls(validateBody(createPolicyPackSchema, await ctx.jsonBody(), 'create policy pack request'));
      const request = { ...body, displayName: body.displayName ?? body.name, policies: body.policies ?? [] } as CreatePolicyPackRequest;
      return jsonResponse(200, await ctx.services.policies.createPack(principal, ctx.params.orgName!, request));
    },
  },
  {
    method: 'GET',
    path: PACKS,
    group: 'stacks',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.policies.listPacks(await ctx.principal(), ctx.params.orgName!));
    },
  },
  {
    method: 'DELETE',
    path: PACK,
    group: 'stacks',
    async handle(ctx) {
      await ctx.services.policies.deletePack(await ctx.principal(), ctx.params.orgName!, ctx.params.policyPackName!);
      return noContentResponse(204);
    },
  },
  {
    method: 'GET',
    path: VERSION,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      return jsonResponse(200, await ctx.services.policies.getPackVersion(await ctx.principal(), orgName!, policyPackName!, versionTag!));
    },
  },
  {
    method: 'DELETE',
    path: VERSION,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      await ctx.services.policies.deletePackVersion(await ctx.principal(), orgName!, policyPackName!, versionTag!);
      return noContentResponse(204);
    },
  },
  {
    // The client PUTs here without its API token (as to a presigned URL): the one-time ticket header is the credential.
    method: 'PUT',
    path: `${VERSION}/upload`,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      const ticket = ctx.request.headers[UPLOAD_TICKET_HEADER.toLowerCase()];
      await ctx.services.policies.uploadPackage(orgName!, policyPackName!, versionTag!, ticket, await ctx.rawBody());
      return okResponse();
    },
  },
  {
    method: 'POST',
    path: `${VERSION}/complete`,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      await ctx.services.policies.completePack(await ctx.principal(), orgName!, policyPackName!, versionTag!);
      return okResponse();
    },
  },
  {
    method: 'GET',
    path: `${VERSION}/schema`,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      return jsonResponse(200, await ctx.services.policies.getPackSchema(await ctx.principal(), orgName!, policyPackName!, versionTag!));
    },
  },
  {
    method: 'GET',
    path: `${VERSION}/download`,
    group: 'stacks',
    async handle(ctx) {
      const { orgName, policyPackName, versionTag } = ctx.params;
      const tarball = await ctx.services.policies.downloadPackage(await ctx.principal(), orgName!, policyPackName!, versionTag!);
      return { status: 200, headers: { 'content-type': 'application/gzip' }, body: Buffer.from(tarball) };
    },
  },
  {
    method: 'GET',
    path: '/api/stacks/{orgName}/{projectName}/{stackName}/policypacks',
    group: 'stacks',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.policies.stackPolicyPacks(await ctx.principal(), ctx.stackRef()));
    },
  },
];
