import { lambdaHandler } from '../composition.js';
import { IDENTITY_GROUP_ROUTES } from '../http/routes/group-identity.js';

/** API Gateway entry point of the identity routes and `$default`; the table only (docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler({ group: 'identity', routes: IDENTITY_GROUP_ROUTES, storage: [] });
