import { routesOf, type Route } from '../router.js';
import { accessRoutes } from './access.js';
import { auditRoutes } from './audit.js';
import { consoleRoutes } from './console.js';
import { identityRoutes } from './identity.js';
import { oidcRoutes } from './oidc.js';
import { openApiRoutes } from './openapi.js';

/** The identity function's routes: users, organizations, tokens, administration, audit, OIDC, console sign-in, OpenAPI. */
export const IDENTITY_GROUP_ROUTES: readonly Route[] = routesOf('identity', [
  ...identityRoutes,
  ...accessRoutes,
  ...auditRoutes,
  ...oidcRoutes,
  ...consoleRoutes,
  ...openApiRoutes,
]);
