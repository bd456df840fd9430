import { routesOf, type Route } from '../router.js';
import { environmentConsoleRoutes } from './environment-console.js';
import { environmentApiRoutes } from './environments.js';
import { oidcIssuerRoutes } from './oidc-issuer.js';
import { secretRoutes } from './secrets.js';

/**
 * The secrets function's routes: encrypt and decrypt, one value or a batch; environments (ESC), which seal secrets too;
 * the console's environment pages; the OIDC issuer whose key environments' providers sign with (sealed by the same
 * key service).
 */
export const SECRETS_GROUP_ROUTES: readonly Route[] = routesOf('secrets', [...secretRoutes, ...environmentApiRoutes, ...environmentConsoleRoutes, ...oidcIssuerRoutes]);
