import { DEFAULT_GROUP, type HandlerGroup, type Route } from '../router.js';
import { accessRoutes } from './access.js';
import { approvalRoutes } from './approvals.js';
import { auditRoutes } from './audit.js';
import { consoleRoutes } from './console.js';
import { deploymentRoutes } from './deployments.js';
import { deploymentRunnerRoutes } from './deployment-runner.js';
import { driftRoutes } from './drift.js';
import { scheduleRoutes } from './schedules.js';
import { environmentConsoleRoutes } from './environment-console.js';
import { pushWebhookRoutes } from './push-webhooks.js';
import { environmentApiRoutes } from './environments.js';
import { hookApiRoutes } from './hooks.js';
import { identityRoutes } from './identity.js';
import { oidcRoutes } from './oidc.js';
import { oidcIssuerRoutes } from './oidc-issuer.js';
import { policyGroupRoutes } from './policy-groups.js';
import { policyPackRoutes } from './policy-packs.js';
import { policyResultRoutes } from './policy-results.js';
import { openApiRoutes } from './openapi.js';
import { restoreRoutes } from './restore.js';
import { secretRoutes } from './secrets.js';
import { stackRoutes } from './stacks.js';
import { stateDiffRoutes } from './state-diff.js';
import { updateRoutes } from './updates.js';

/**
 * The whole API: every route the Pulumi CLI calls (pulumi-service-api.md §3.1-§3.4) plus Stackyard's admin and hook
 * routes.
 */
export const API_ROUTES: readonly Route[] = [
  ...identityRoutes,
  ...stackRoutes,
  ...restoreRoutes,
  ...stateDiffRoutes,
  ...updateRoutes,
  ...secretRoutes,
  ...environmentApiRoutes,
  ...environmentConsoleRoutes,
  ...hookApiRoutes,
  ...deploymentRoutes,
  ...deploymentRunnerRoutes,
  ...driftRoutes,
  ...approvalRoutes,
  ...scheduleRoutes,
  ...pushWebhookRoutes,
  ...policyPackRoutes,
  ...policyGroupRoutes,
  ...policyResultRoutes,
  ...accessRoutes,
  ...auditRoutes,
  ...oidcRoutes,
  ...oidcIssuerRoutes,
  ...consoleRoutes,
  ...openApiRoutes,
];

/** Lambda function names per group, as the CDK app names them (`HandlerSpec.name`). */
export const HANDLER_NAMES: Record<HandlerGroup, string> = {
  identity: 'Identity',
  stacks: 'Stacks',
  updates: 'Updates',
  secrets: 'Secrets',
};

/**
 * API Gateway route bindings for the CDK app: one per route, plus `$default` (anything else, answered with a 404 in
 * the Pulumi error shape) on the DEFAULT_GROUP (identity) function.
 */
export function routeBindings(): { routeKey: string; handler: string }[] {
  return [
    ...API_ROUTES.map((route) => ({ routeKey: `${route.method} ${route.path}`, handler: HANDLER_NAMES[route.group] })),
    { routeKey: '$default', handler: HANDLER_NAMES[DEFAULT_GROUP] },
  ];
}
