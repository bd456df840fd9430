import { lambdaHandler } from '../composition.js';
import { STACKS_GROUP_ROUTES } from '../http/routes/group-stacks.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/** API Gateway entry point of the stacks routes: the table, S3 and KMS (docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler({ group: 'stacks', routes: STACKS_GROUP_ROUTES, storage: [s3Parts, kmsParts] });
