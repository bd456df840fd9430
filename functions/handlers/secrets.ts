import { lambdaHandler } from '../composition.js';
import { kmsParts } from '../storage-parts/kms.js';

/** API Gateway entry point of the secrets routes: the table and KMS (see docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler('secrets', [kmsParts]);
