import { deltaCheckpointCapability } from '../../../shared/core/journal/protocol.js';
import { validateBody } from '../decode.js';
import { jsonResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { addMemberSchema, createOrgSchema, createTokenSchema, createUserSchema } from '../schemas-identity.js';
import { serviceUser, tokenInfo, tokenView } from '../wire.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What `GET /api/capabilities` advertises: batch encryption, v4 deployments (so `features` survive), and verbatim/delta
 * checkpoints, which the updates routes serve (`checkpointverbatim`, `checkpointdelta`). A fixed list: the identity
 * function that answers it carries no update service.
 */
export function capabilities() {
  return [
    { capability: 'batch-encrypt' },
    { capability: 'deployment-schema-version', version: 1, configuration: { version: 4 } },
    deltaCheckpointCapability(),
  ];
}

/** The login an admin route acts on: `?login=` (admins, for other users) or the caller. */
const loginQuery = (query: URLSearchParams) => query.get('login') || undefined;

export const identityRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/user',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const user = await ctx.services.identity.getUser(principal);
      return jsonResponse(200, { ...serviceUser(user), ...tokenInfo(principal.token) });
    },
  },
  {
    method: 'GET',
    path: '/api/user/organizations/default',
    group: 'identity',
    async handle(ctx) {
      const org = await ctx.services.identity.defaultOrg(await ctx.principal());
      // The CLI's struct has no JSON tags, so these keys are PascalCase.
      return jsonResponse(200, { GitHubLogin: org, Messages: [] });
    },
  },
  {
    method: 'GET',
    path: '/api/capabilities',
    group: 'identity',
    async handle(ctx) {
      await ctx.principal();
      return jsonResponse(200, { capabilities: capabilities() });
    },
  },
  {
    // Bare package names resolve through this list; an error here would be fatal for that resolution.
    method: 'GET',
    path: '/api/registry/packages',
    group: 'identity',
    async handle(ctx) {
      await ctx.principal();
      return jsonResponse(200, { packages: [], continuationToken: null });
    },
  },
  {
    method: 'POST',
    path: '/api/users',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createUserSchema, await ctx.jsonBody(), 'create user request');
      const user = await ctx.services.identity.createUser(principal, body);
      return jsonResponse(201, { login: user.login, name: user.name, email: user.email ?? '', admin: user.admin });
    },
  },
  {
    method: 'POST',
    path: '/api/orgs',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createOrgSchema, await ctx.jsonBody(), 'create organization request');
      await ctx.services.identity.createOrg(principal, body.name);
      return jsonResponse(201, { name: body.name });
    },
  },
  {
    method: 'GET',
    path: '/api/orgs',
    group: 'identity',
    async handle(ctx) {
      const organizations = await ctx.services.identity.listOrgs(await ctx.principal());
      return jsonResponse(200, { organizations });
    },
  },
  {
    method: 'POST',
    path: '/api/orgs/{orgName}/members',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(addMemberSchema, await ctx.jsonBody(), 'add member request');
      await ctx.services.identity.addMember(principal, ctx.params.orgName!, body.login, body.role);
      return jsonResponse(201, { org: ctx.params.orgName, login: body.login, role: body.role });
    },
  },
  {
    method: 'POST',
    path: '/api/user/tokens',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createTokenSchema, await ctx.jsonBody(), 'create token request');
      const { token, record } = await ctx.services.identity.createToken(principal, {
        description: body.description,
        login: body.login,
        expiresInMs: body.expiresInDays === undefined ? undefined : Math.round(body.expiresInDays * DAY_MS),
      });
      return jsonResponse(201, { id: record.id, tokenValue: token });
    },
  },
  {
    method: 'GET',
    path: '/api/user/tokens',
    group: 'identity',
    async handle(ctx) {
      const tokens = await ctx.services.identity.listTokens(await ctx.principal(), loginQuery(ctx.request.query));
      return jsonResponse(200, { tokens: tokens.map(tokenView) });
    },
  },
  {
    method: 'DELETE',
    path: '/api/user/tokens/{tokenId}',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      await ctx.services.identity.revokeToken(principal, ctx.params.tokenId!, loginQuery(ctx.request.query));
      return okResponse();
    },
  },
];
