import { auditTable, consoleSessionTable, identityTable, leaseTable, policyTable, stackTable, updateTable } from '../../shared/adapters/aws/table-stores.js';
import { createConsoleService } from '../../shared/core/console/index.js';
import { createAccessService } from '../../shared/core/access/access-service.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import { createPolicyService } from '../../shared/core/policy/policy-service.js';
import { createStackRestoreService } from '../../shared/core/stacks/stack-restore.js';
import { createStateDiffService } from '../../shared/core/state-diff/state-diff-service.js';
import { createStackService } from '../../shared/core/stacks/stack-service.js';
import type { UpdateService } from '../../shared/core/updates/types.js';
import { updateStatus } from '../../shared/core/updates/update-records.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { STACKS_GROUP_ROUTES } from '../http/routes/group-stacks.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/**
 * API Gateway entry point of the stacks routes (stacks, history, export and import, restore, permissions, the console's
 * stack pages, policy packs and groups), on the table, S3 and KMS (docs/deploy.md, "What each function bundles").
 */
export const stacksFunction: LambdaFunction = {
  group: 'stacks',
  routes: STACKS_GROUP_ROUTES,
  tables: [identityTable, auditTable, consoleSessionTable, stackTable, updateTable, leaseTable, policyTable],
  storage: [s3Parts, kmsParts],
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return {
      identity,
      console: audited(createConsoleService(deps, identity)),
      access: audited(createAccessService(deps)),
      stacks: audited(createStackService(deps)),
      restore: audited(createStackRestoreService(deps)),
      stateDiff: audited(createStateDiffService(deps)),
      policies: audited(createPolicyService(deps)),
      // A stack's page shows its running update's status; the update lifecycle (its gates bring the Lambda client)
      // stays out of this function.
      updates: audited<Pick<UpdateService, 'status'>>({ status: (...args) => updateStatus(deps, ...args) }),
    };
  },
};

export const handler = lambdaHandler(stacksFunction);
