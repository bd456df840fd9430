import type { Storage } from '../../ports/index.js';
import { createAccessService } from '../access/access-service.js';
import { createApprovalService } from '../approvals/approval-service.js';
import { auditingDenials } from '../audit/denials.js';
import { createAuditService } from '../audit/audit.js';
import { createConsoleService } from '../console/index.js';
import { createDeploymentService } from '../deployments/deployment-service.js';
import { createRunAgentService } from '../deployments/run-agent.js';
import { createDriftService } from '../drift/drift-service.js';
import { createScheduleService } from '../schedules/schedule-service.js';
import { createPushWebhookService } from '../push-webhooks/push-webhook-service.js';
import { createEnvironmentService } from '../environments/environment-service.js';
import { createHookService } from '../hooks/hook-service.js';
import { createIdentityService } from '../identity/identity-service.js';
import type { ServiceOptions } from '../kernel/options.js';
import { createPolicyService } from '../policy/policy-service.js';
import { createOidcService } from '../oidc/oidc-service.js';
import { createSecretService } from '../secrets/secret-service.js';
import { createStackRestoreService } from '../stacks/stack-restore.js';
import { createStackService } from '../stacks/stack-service.js';
import { createStateDiffService } from '../state-diff/state-diff-service.js';
import { createUpdateService } from '../updates/update-service.js';
import { serviceDeps } from './service-deps.js';
import type { Services } from './types.js';

/**
 * The composition root: every service built on one set of deps, each passed through `auditingDenials`. It only
 * composes; nothing in shared/core imports it.
 */
export function createServices(storage: Storage, options: ServiceOptions = {}): Services {
  const deps = serviceDeps(storage, options);
  const identity = auditingDenials(deps, createIdentityService(deps));
  return {
    identity,
    access: auditingDenials(deps, createAccessService(deps)),
    audit: auditingDenials(deps, createAuditService(deps)),
    oidc: auditingDenials(deps, createOidcService(deps)),
    stacks: auditingDenials(deps, createStackService(deps)),
    restore: auditingDenials(deps, createStackRestoreService(deps)),
    stateDiff: auditingDenials(deps, createStateDiffService(deps)),
    updates: auditingDenials(deps, createUpdateService(deps)),
    secrets: auditingDenials(deps, createSecretService(deps)),
    hooks: auditingDenials(deps, createHookService(deps)),
    console: auditingDenials(deps, createConsoleService(deps, identity)),
    environments: auditingDenials(deps, createEnvironmentService(deps)),
    deployments: auditingDenials(deps, createDeploymentService(deps)),
    runAgent: auditingDenials(deps, createRunAgentService(deps)),
    drift: auditingDenials(deps, createDriftService(deps)),
    approvals: auditingDenials(deps, createApprovalService(deps)),
    schedules: auditingDenials(deps, createScheduleService(deps)),
    pushWebhooks: createPushWebhookService(deps),
    policies: auditingDenials(deps, createPolicyService(deps)),
  };
}
