import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

/** Set by the bundler; `dev` when run from source. */
declare const __STACKYARD_VERSION__: string | undefined;
const VERSION = typeof __STACKYARD_VERSION__ === 'string' ? __STACKYARD_VERSION__ : 'dev';

let document: Promise<unknown> | undefined;

/**
 * Built on the first request and kept: the generator and the response schemas load only here (dynamic imports),
 * so no other request and no cold start pays for them.
 */
function openApiDocument(): Promise<unknown> {
  return (document ??= import('../openapi/document.js').then(({ buildOpenApiDocument, documentedRoutes }) =>
    buildOpenApiDocument(documentedRoutes(), VERSION),
  ));
}

/** `GET /api/openapi.json`: the OpenAPI 3.1 document of every route (docs/api.md); any valid credentials. */
export const openApiRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/openapi.json',
    group: 'identity',
    async handle(ctx) {
      await ctx.principal();
      return jsonResponse(200, await openApiDocument());
    },
  },
];
