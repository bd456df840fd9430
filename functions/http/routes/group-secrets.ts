import { routesOf, type Route } from '../router.js';
import { environmentApiRoutes } from './environments.js';
import { secretRoutes } from './secrets.js';

/** The secrets function's routes: encrypt and decrypt, one value or a batch; environments (ESC), which seal secrets too. */
export const SECRETS_GROUP_ROUTES: readonly Route[] = routesOf('secrets', [...secretRoutes, ...environmentApiRoutes]);
