import { issuerKeyView, KEY_SET_CACHE_SECONDS } from '../../../shared/core/environments/issuer/index.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

/** Relying parties cache the key set this long; a rotated key is published long enough before it signs (key-schedule.ts). */
const CACHE = `public, max-age=${KEY_SET_CACHE_SECONDS}`;

/**
 * The service as an OIDC issuer (`<service URL>/oidc`, as Pulumi's `https://api.pulumi.com/oidc`): the discovery
 * document and the public keys that AWS STS (or any relying party) verifies environments' ID tokens with. Public by
 * design: no credentials, nothing secret. On the secrets function, which opens environments and holds the key
 * service rights the sealed signing key needs. Site administrators list and rotate the signing keys.
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
  {
    method: 'GET',
    path: '/api/admin/oidc-issuer/keys',
    group: 'secrets',
    async handle(ctx) {
      return jsonResponse(200, { keys: (await ctx.services.environments.issuerKeys(await ctx.principal())).map(issuerKeyView) });
    },
  },
  {
    method: 'POST',
    path: '/api/admin/oidc-issuer/keys',
    group: 'secrets',
    async handle(ctx) {
      return jsonResponse(201, { keys: (await ctx.services.environments.rotateIssuerKey(await ctx.principal())).map(issuerKeyView) });
    },
  },
];
