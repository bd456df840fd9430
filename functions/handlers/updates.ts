import {
  approvalTable,
  auditTable,
  consoleSessionTable,
  deploymentTable,
  driftTable,
  hookTable,
  identityTable,
  leaseTable,
  policyTable,
  scheduleTable,
  stackTable,
  updateTable,
} from '../../shared/adapters/aws/table-stores.js';
import { createApprovalService } from '../../shared/core/approvals/approval-service.js';
import { createConsoleAuth } from '../../shared/core/console/console-auth.js';
import { createDeploymentService } from '../../shared/core/deployments/deployment-service.js';
import { createRunAgentService } from '../../shared/core/deployments/run-agent.js';
import { createDriftService } from '../../shared/core/drift/drift-service.js';
import { createPolicyService } from '../../shared/core/policy/policy-service.js';
import { createScheduleService } from '../../shared/core/schedules/schedule-service.js';
import { createPushWebhookService } from '../../shared/core/push-webhooks/push-webhook-service.js';
import { createHookService } from '../../shared/core/hooks/hook-service.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import { createUpdateService } from '../../shared/core/updates/update-service.js';
import { runQueueFromEnv } from '../../shared/adapters/aws/sqs-run-queue.js';
import { scheduleTriggersFromEnv } from '../../shared/adapters/aws/eventbridge-schedule-triggers.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { UPDATES_GROUP_ROUTES } from '../http/routes/group-updates.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/**
 * API Gateway entry point of the updates routes (an update's lifecycle with the policy packs it must run, webhooks,
 * push webhooks that queue deployment runs), on the table, S3 and KMS
 * (docs/deploy.md, "What each function bundles").
 */
export const updatesFunction: LambdaFunction = {
  group: 'updates',
  routes: UPDATES_GROUP_ROUTES,
  tables: [
    stackTable,
    updateTable,
    leaseTable,
    identityTable,
    hookTable,
    consoleSessionTable,
    auditTable,
    deploymentTable,
    driftTable,
    approvalTable,
    scheduleTable,
    policyTable,
  ],
  storage: [s3Parts, kmsParts],
  runQueue: runQueueFromEnv,
  scheduleTriggers: scheduleTriggersFromEnv,
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return {
      identity,
      console: audited(createConsoleAuth(deps, identity)),
      updates: audited(createUpdateService(deps)),
      hooks: audited(createHookService(deps)),
      deployments: audited(createDeploymentService(deps)),
      runAgent: audited(createRunAgentService(deps)),
      drift: audited(createDriftService(deps)),
      approvals: audited(createApprovalService(deps)),
      schedules: audited(createScheduleService(deps)),
      policies: audited(createPolicyService(deps)),
      pushWebhooks: createPushWebhookService(deps),
    };
  },
};

export const handler = lambdaHandler(updatesFunction);
