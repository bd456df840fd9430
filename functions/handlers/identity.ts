import { lambdaHandler } from '../composition.js';

/** API Gateway entry point of the identity routes (and `$default`): the table only (see docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler('identity', []);
