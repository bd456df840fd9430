import { InvalidInputError } from '../../../shared/core/errors.js';
import { parseTokenExchange } from '../../../shared/core/oidc/exchange-request.js';
import type { OidcPolicyRecord } from '../../../shared/ports/identity-store.js';
import { requestInfo } from '../auth.js';
import { validateBody } from '../decode.js';
import { jsonResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createOidcPolicySchema, tokenExchangeFormSchema } from '../schemas-identity.js';

const POLICIES = '/api/orgs/{orgName}/oidc/policies';

function policyView(policy: OidcPolicyRecord) {
  const { org: _org, ...view } = policy;
  return view;
}

/**
 * OIDC for CI: the token exchange the Pulumi CLI performs (`pulumi login --oidc-token`, client.ExchangeOidcToken)
 * and organizations' trust policies. The exchange is unauthenticated by design: the ID token is the credential.
 */
export const oidcRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/oauth/token',
    group: 'identity',
    async handle(ctx) {
      const type = (ctx.request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') {
        throw new InvalidInputError('The token exchange takes a form-encoded body (Content-Type: application/x-www-form-urlencoded, RFC 8693 §2.1).');
      }
      const form = Object.fromEntries(new URLSearchParams((await ctx.rawBody()).toString('utf8')));
      const request = parseTokenExchange(validateBody(tokenExchangeFormSchema, form, 'token exchange request'));
      const result = await ctx.services.oidc.exchange(request, requestInfo(ctx.request));
      // apitype.TokenExchangeGrantResponse; the CLI sends the token back as `Authorization: token <access_token>`.
      return jsonResponse(200, {
        access_token: result.accessToken,
        issued_token_type: result.issuedTokenType,
        token_type: 'Bearer',
        expires_in: result.expiresInSeconds,
        scope: result.scope,
      });
    },
  },
  {
    method: 'GET',
    path: POLICIES,
    group: 'identity',
    async handle(ctx) {
      const policies = await ctx.services.oidc.listPolicies(await ctx.principal(), ctx.params.orgName!);
      return jsonResponse(200, { policies: policies.map(policyView) });
    },
  },
  {
    method: 'POST',
    path: POLICIES,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createOidcPolicySchema, await ctx.jsonBody(), 'OIDC trust policy');
      const policy = await ctx.services.oidc.createPolicy(principal, ctx.params.orgName!, {
        issuer: body.issuer,
        ...(body.audiences ? { audiences: body.audiences } : {}),
        claims: body.claims,
        tokenKind: body.tokenKind,
        ...(body.team !== undefined ? { team: body.team } : {}),
        ...(body.user !== undefined ? { user: body.user } : {}),
        ...(body.maxLifetimeSeconds !== undefined ? { maxLifetimeSeconds: body.maxLifetimeSeconds } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
      });
      return jsonResponse(201, policyView(policy));
    },
  },
  {
    method: 'DELETE',
    path: `${POLICIES}/{policyId}`,
    group: 'identity',
    async handle(ctx) {
      await ctx.services.oidc.deletePolicy(await ctx.principal(), ctx.params.orgName!, ctx.params.policyId!);
      return okResponse();
    },
  },
];
