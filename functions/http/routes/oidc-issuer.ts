import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

/** Key sets change only when a deployment makes its first key; relying parties cache them for this long. */
const CACHE = 'public, max-age=300';

/**
 * The service as an OIDC issuer (`<service URL>/oidc`, as Pulumi's `https://api.pulumi.com/oidc`): the discovery
 * document and the public keys that AWS STS (or any relying party) verifies environments' ID tokens with. Public by
 * design: no credentials, nothing secret. On the secrets function, which opens environments and holds the key
 * service rights the sealed signing key needs.
 */
export const oidcIssuerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/oidc/.well-known/openid-configuration',
    group: 'secrets',
    async handle(ctx) {
      const response = jsonResponse(200, ctx.services.environments.issuerDiscovery());
      return { ...response, headers: { ...response.headers, 'cache-control': CACHE } };
    },
  },
  {
    method: 'GET',
    path: '/oidc/.well-known/jwks',
    group: 'secrets',
    async handle(ctx) {
      const response = jsonResponse(200, await ctx.services.environments.issuerKeySet());
      return { ...response, headers: { ...response.headers, 'cache-control': CACHE } };
    },
  },
];
