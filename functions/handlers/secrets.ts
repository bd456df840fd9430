import { lambdaHandler } from '../composition.js';
import { SECRETS_GROUP_ROUTES } from '../http/routes/group-secrets.js';
import { kmsParts } from '../storage-parts/kms.js';

/** API Gateway entry point of the secrets routes: the table and KMS (docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler({ group: 'secrets', routes: SECRETS_GROUP_ROUTES, storage: [kmsParts] });
