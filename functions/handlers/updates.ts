import { lambdaHandler } from '../composition.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/** API Gateway entry point of the updates routes: the table, S3 and KMS (see docs/deploy.md, "What each function bundles"). */
export const handler = lambdaHandler('updates', [s3Parts, kmsParts]);
