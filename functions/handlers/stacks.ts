import { createConsoleService } from '../../shared/core/console/index.js';
import { createHookService } from '../../shared/core/hooks/hook-service.js';
import { createAccessService } from '../../shared/core/service/access-service.js';
import { createIdentityService } from '../../shared/core/service/identity-service.js';
import { createStackRestoreService } from '../../shared/core/service/stack-restore.js';
import { createStackService } from '../../shared/core/service/stack-service.js';
import { createUpdateService } from '../../shared/core/service/update-service.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { STACKS_GROUP_ROUTES } from '../http/routes/group-stacks.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/**
 * API Gateway entry point of the stacks routes (stacks, history, export and import, restore, permissions, hooks, the
 * console's stack pages), on the table, S3 and KMS (docs/deploy.md, "What each function bundles").
 */
export const stacksFunction: LambdaFunction = {
  group: 'stacks',
  routes: STACKS_GROUP_ROUTES,
  storage: [s3Parts, kmsParts],
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return {
      identity,
      console: audited(createConsoleService(deps, identity)),
      access: audited(createAccessService(deps)),
      stacks: audited(createStackService(deps)),
      restore: audited(createStackRestoreService(deps)),
      updates: audited(createUpdateService(deps)),
      hooks: audited(createHookService(deps)),
    };
  },
};

export const handler = lambdaHandler(stacksFunction);
