import { createConsoleService } from '../../shared/core/console/index.js';
import { createIdentityService } from '../../shared/core/service/identity-service.js';
import { createUpdateService } from '../../shared/core/service/update-service.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { UPDATES_GROUP_ROUTES } from '../http/routes/group-updates.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/** API Gateway entry point of the updates routes, on the table, S3 and KMS (docs/deploy.md, "What each function bundles"). */
export const updatesFunction: LambdaFunction = {
  group: 'updates',
  routes: UPDATES_GROUP_ROUTES,
  storage: [s3Parts, kmsParts],
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return { identity, console: audited(createConsoleService(deps, identity)), updates: audited(createUpdateService(deps)) };
  },
};

export const handler = lambdaHandler(updatesFunction);
