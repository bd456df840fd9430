import { auditingDenials } from '../../shared/core/audit/denials.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import type { Services } from '../../shared/core/compose/types.js';

/** The services the local backend uses, each a promise of the service (no console, and no webhooks or runner routes: nothing serves them). */
export type LocalServices = { [K in Exclude<keyof Services, 'console' | 'pushWebhooks' | 'runAgent'>]: () => Promise<Services[K]> };

/**
 * The local backend's in-process services, each imported and built the first time a command uses it, on one
 * `ServiceDeps` and wrapped to record denials, exactly as `createServices` builds them. `stack ls` then loads the stack
 * service alone, not the update, hook, identity and secrets services and what they import (journal replay, hook
 * transports, ...).
 */
export function localServices(deps: ServiceDeps): LocalServices {
  const once = <T extends object>(build: () => Promise<T>): (() => Promise<T>) => {
    let built: Promise<T> | undefined;
    return () => (built ??= build().then((service) => auditingDenials(deps, service)));
  };
  return {
    stacks: once(async () => (await import('../../shared/core/stacks/stack-service.js')).createStackService(deps)),
    restore: once(async () => (await import('../../shared/core/stacks/stack-restore.js')).createStackRestoreService(deps)),
    stateDiff: once(async () => (await import('../../shared/core/state-diff/state-diff-service.js')).createStateDiffService(deps)),
    updates: once(async () => (await import('../../shared/core/updates/update-service.js')).createUpdateService(deps)),
    secrets: once(async () => (await import('../../shared/core/secrets/secret-service.js')).createSecretService(deps)),
    identity: once(async () => (await import('../../shared/core/identity/identity-service.js')).createIdentityService(deps)),
    access: once(async () => (await import('../../shared/core/access/access-service.js')).createAccessService(deps)),
    audit: once(async () => (await import('../../shared/core/audit/audit.js')).createAuditService(deps)),
    oidc: once(async () => (await import('../../shared/core/oidc/oidc-service.js')).createOidcService(deps)),
    hooks: once(async () => (await import('../../shared/core/hooks/hook-service.js')).createHookService(deps)),
    environments: once(async () => {
      const [{ createEnvironmentService }, { sdkAwsProviderApi }] = await Promise.all([
        import('../../shared/core/environments/environment-service.js'),
        import('../../shared/adapters/aws/aws-provider-api.js'),
      ]);
      // Providers opened on local storage (static keys, aws-secrets, aws-parameter-store) call AWS as serve's do.
      return createEnvironmentService({ ...deps, options: { ...deps.options, awsProviderApi: sdkAwsProviderApi() } });
    }),
    deployments: once(async () => (await import('../../shared/core/deployments/deployment-service.js')).createDeploymentService(deps)),
    drift: once(async () => (await import('../../shared/core/drift/drift-service.js')).createDriftService(deps)),
    approvals: once(async () => (await import('../../shared/core/approvals/approval-service.js')).createApprovalService(deps)),
    schedules: once(async () => (await import('../../shared/core/schedules/schedule-service.js')).createScheduleService(deps)),
    policies: once(async () => (await import('../../shared/core/policy/policy-service.js')).createPolicyService(deps)),
  };
}
