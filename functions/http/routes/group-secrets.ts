import { routesOf, type Route } from '../router.js';
import { secretRoutes } from './secrets.js';

/** The secrets function's routes: encrypt and decrypt, one value or a batch. */
export const SECRETS_GROUP_ROUTES: readonly Route[] = routesOf('secrets', secretRoutes);
