import type { EnvironmentAction, OrgAction, StackAction } from '../../shared/core/kernel/permissions.js';

/**
 * What each route of the API needs, by the permission table (shared/core/kernel/permissions.ts): the requirement side
 * of the authorization matrix in authz.test.ts.
 */

/** What a route needs, by the permission table. */
export type Access =
  | { any: true }
  | { siteAdmin: true }
  | { personalTokens: true }
  | { project: true }
  | { stack: StackAction }
  | { environment: EnvironmentAction }
  | { org: OrgAction }
  | { lease: true }
  /** `POST /api/oauth/token`: unauthenticated by design (the ID token in the body is the credential). */
  | { oidcExchange: true }
  /** The OIDC issuer's discovery document and keys: public by design, for relying parties such as AWS STS. */
  | { public: true }
  /** A policy pack upload: the one-time ticket header is the credential, never an API token. */
  | { uploadTicket: true }
  /** A push webhook: its signature under the stack's secret is the credential, never an API token. */
  | { webhookSignature: true }
  /** A runner route: the run's own deployment token only; any other token is refused with 403. */
  | { runToken: true };

export const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
export const UPDATE = `${STACK}/update/{updateId}`;
export const ORG = '/api/orgs/{orgName}';
const ESC = '/api/esc/environments';
const PREVIEW = '/api/preview/environments';

/** The routes of one environment (acme/proj/dev under ESC's prefix, acme/default/dev under the preview one). */
function environmentAccess(base: string): Record<string, Access> {
  const version = (path: string): Record<string, Access> => ({
    [`GET ${path}`]: { environment: 'read' },
    [`GET ${path}/decrypt`]: { environment: 'open' },
    [`POST ${path}/open`]: { environment: 'open' },
    [`POST ${path}/check`]: { environment: 'read' },
  });
  return {
    ...version(base),
    ...version(`${base}/versions/{version}`),
    [`PATCH ${base}`]: { environment: 'write' },
    [`DELETE ${base}`]: { environment: 'delete' },
    [`GET ${base}/open/{openSessionId}`]: { environment: 'open' },
    [`POST ${base}/clone`]: { environment: 'open' },
    [`GET ${base}/versions`]: { environment: 'read' },
    [`GET ${base}/versions/tags`]: { environment: 'read' },
    [`POST ${base}/versions/tags`]: { environment: 'write' },
    [`GET ${base}/versions/tags/{tagName}`]: { environment: 'read' },
    [`PATCH ${base}/versions/tags/{tagName}`]: { environment: 'write' },
    [`DELETE ${base}/versions/tags/{tagName}`]: { environment: 'write' },
    [`GET ${base}/permissions`]: { environment: 'read' },
    [`PATCH ${base}/permissions`]: { environment: 'manage-permissions' },
  };
}

/** Every route's requirement; a route missing here fails the matrix (add it when you add a route). */
export const ROUTE_ACCESS: Record<string, Access> = {
  'GET /api/user': { any: true },
  'GET /api/user/organizations/default': { any: true },
  'GET /api/capabilities': { any: true },
  'GET /api/registry/packages': { any: true },
  'GET /api/openapi.json': { any: true },
  'GET /api/user/stacks': { any: true },
  'GET /api/orgs': { any: true },
  'POST /api/users': { siteAdmin: true },
  'POST /api/orgs': { siteAdmin: true },
  'POST /api/user/tokens': { personalTokens: true },
  'GET /api/user/tokens': { personalTokens: true },
  'DELETE /api/user/tokens/{tokenId}': { personalTokens: true },
  'HEAD /api/stacks/{orgName}/{projectName}': { project: true },
  'POST /api/stacks/{orgName}/{projectName}': { org: 'create-stack' },
  [`GET ${STACK}`]: { stack: 'view' },
  [`DELETE ${STACK}`]: { stack: 'delete' },
  [`POST ${STACK}/rename`]: { stack: 'rename' },
  [`PATCH ${STACK}/tags`]: { stack: 'tags' },
  [`PUT ${STACK}/config`]: { stack: 'config' },
  [`GET ${STACK}/export`]: { stack: 'export' },
  [`GET ${STACK}/export/{version}`]: { stack: 'export' },
  [`POST ${STACK}/import`]: { stack: 'import' },
  [`POST ${STACK}/rollback`]: { stack: 'restore' },
  [`POST ${STACK}/history`]: { stack: 'restore' },
  [`GET ${STACK}/updates`]: { stack: 'history' },
  [`GET ${STACK}/updates/latest`]: { stack: 'history' },
  [`POST ${STACK}/update`]: { stack: 'update' },
  [`POST ${STACK}/preview`]: { stack: 'update' },
  [`POST ${STACK}/refresh`]: { stack: 'update' },
  [`POST ${STACK}/destroy`]: { stack: 'update' },
  [`POST ${UPDATE}`]: { stack: 'update' },
  [`GET ${UPDATE}`]: { stack: 'view' },
  [`POST ${UPDATE}/renew_lease`]: { lease: true },
  [`PATCH ${UPDATE}/checkpoint`]: { lease: true },
  [`PATCH ${UPDATE}/checkpointverbatim`]: { lease: true },
  [`PATCH ${UPDATE}/checkpointdelta`]: { lease: true },
  [`PATCH ${UPDATE}/journalentries`]: { lease: true },
  [`POST ${UPDATE}/events/batch`]: { lease: true },
  [`POST ${UPDATE}/complete`]: { lease: true },
  [`POST ${UPDATE}/cancel`]: { stack: 'cancel' },
  [`POST ${STACK}/encrypt`]: { stack: 'encrypt' },
  [`POST ${STACK}/batch-encrypt`]: { stack: 'encrypt' },
  [`POST ${STACK}/decrypt`]: { stack: 'decrypt' },
  [`POST ${STACK}/batch-decrypt`]: { stack: 'decrypt' },
  [`POST ${STACK}/decrypt/log-decryption`]: { stack: 'view' },
  [`POST ${STACK}/decrypt/log-batch-decryption`]: { stack: 'view' },
  [`GET ${ORG}/hooks`]: { org: 'read-hooks' },
  [`POST ${ORG}/hooks`]: { org: 'manage-hooks' },
  [`GET ${ORG}/hooks/{hookName}`]: { org: 'read-hooks' },
  [`DELETE ${ORG}/hooks/{hookName}`]: { org: 'manage-hooks' },
  [`GET ${ORG}/hooks/{hookName}/deliveries`]: { org: 'read-hooks' },
  [`POST ${ORG}/hooks/{hookName}/ping`]: { org: 'manage-hooks' },
  [`POST ${ORG}/hooks/{hookName}/deliveries/{deliveryId}/redeliver`]: { org: 'manage-hooks' },
  [`GET ${STACK}/hooks`]: { stack: 'read-hooks' },
  [`POST ${STACK}/hooks`]: { stack: 'manage-hooks' },
  [`GET ${STACK}/hooks/{hookName}`]: { stack: 'read-hooks' },
  [`DELETE ${STACK}/hooks/{hookName}`]: { stack: 'manage-hooks' },
  [`GET ${STACK}/hooks/{hookName}/deliveries`]: { stack: 'read-hooks' },
  [`POST ${STACK}/hooks/{hookName}/ping`]: { stack: 'manage-hooks' },
  [`POST ${STACK}/hooks/{hookName}/deliveries/{deliveryId}/redeliver`]: { stack: 'manage-hooks' },
  [`POST ${ORG}/members`]: { org: 'manage-members' },
  [`GET ${ORG}/members`]: { org: 'manage-members' },
  [`PATCH ${ORG}/members/{userLogin}`]: { org: 'manage-members' },
  [`DELETE ${ORG}/members/{userLogin}`]: { org: 'manage-members' },
  [`PATCH ${ORG}/settings`]: { org: 'manage-settings' },
  [`GET ${ORG}/teams`]: { org: 'manage-teams' },
  [`POST ${ORG}/teams`]: { org: 'manage-teams' },
  [`PATCH ${ORG}/teams/{teamName}`]: { org: 'manage-teams' },
  [`DELETE ${ORG}/teams/{teamName}`]: { org: 'manage-teams' },
  [`POST ${ORG}/tokens`]: { org: 'manage-tokens' },
  [`GET ${ORG}/tokens`]: { org: 'manage-tokens' },
  [`DELETE ${ORG}/tokens/{tokenId}`]: { org: 'manage-tokens' },
  [`POST ${ORG}/teams/{teamName}/tokens`]: { org: 'manage-tokens' },
  [`GET ${ORG}/teams/{teamName}/tokens`]: { org: 'manage-tokens' },
  [`DELETE ${ORG}/teams/{teamName}/tokens/{tokenId}`]: { org: 'manage-tokens' },
  [`GET ${STACK}/deployments/settings`]: { stack: 'read-deployments' },
  [`POST ${STACK}/deployments/settings`]: { stack: 'manage-deployments' },
  [`DELETE ${STACK}/deployments/settings`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/settings/encrypt`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments`]: { stack: 'update' },
  [`POST ${STACK}/deployments/sources`]: { stack: 'update' },
  [`PUT ${STACK}/deployments/sources/{archiveId}`]: { stack: 'update' },
  [`GET ${STACK}/deployments`]: { stack: 'read-deployments' },
  [`GET ${STACK}/deployments/{deploymentId}`]: { stack: 'read-deployments' },
  [`POST ${STACK}/deployments/{deploymentId}/cancel`]: { stack: 'cancel' },
  [`GET ${STACK}/deployments/{deploymentId}/logs`]: { stack: 'read-deployments' },
  [`GET ${STACK}/deployments/{deploymentId}/updates`]: { stack: 'read-deployments' },
  [`GET ${STACK}/deployments/schedules`]: { stack: 'read-deployments' },
  [`POST ${STACK}/deployments/schedules`]: { stack: 'manage-deployments' },
  [`GET ${STACK}/deployments/schedules/{scheduleId}`]: { stack: 'read-deployments' },
  [`POST ${STACK}/deployments/schedules/{scheduleId}`]: { stack: 'manage-deployments' },
  [`DELETE ${STACK}/deployments/schedules/{scheduleId}`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/schedules/{scheduleId}/pause`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/schedules/{scheduleId}/resume`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/drift/schedules`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/drift/schedules/{scheduleId}`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/ttl/schedules`]: { stack: 'manage-deployments' },
  [`POST ${STACK}/deployments/ttl/schedules/{scheduleId}`]: { stack: 'manage-deployments' },
  [`GET ${STACK}/drift/runs`]: { stack: 'read-deployments' },
  [`GET ${STACK}/drift/status`]: { stack: 'read-deployments' },
  [`GET ${STACK}/approvals`]: { stack: 'read-approvals' },
  [`PUT ${STACK}/approvals`]: { stack: 'manage-approvals' },
  [`GET ${ORG}/approvals`]: { org: 'read-approval-rules' },
  [`PUT ${ORG}/approvals`]: { org: 'manage-approval-rules' },
  [`POST ${STACK}/plans`]: { stack: 'submit-plan' },
  [`GET ${STACK}/plans`]: { stack: 'read-approvals' },
  [`GET ${STACK}/plans/{planId}`]: { stack: 'read-approvals' },
  [`POST ${STACK}/plans/{planId}/approve`]: { stack: 'approve-plan' },
  [`POST ${STACK}/plans/{planId}/reject`]: { stack: 'approve-plan' },
  [`GET ${STACK}/permissions`]: { stack: 'view' },
  [`PATCH ${STACK}/permissions`]: { stack: 'manage-permissions' },
  [`GET ${ORG}/auditlogs`]: { org: 'read-audit-log' },
  'GET /api/admin/auditlogs': { siteAdmin: true },
  // The web console: sign-in takes its credentials from the body only; a session, sign-out and login codes are the
  // caller's own; the reads follow the stack and organization rules of the CLI's routes.
  'POST /api/console/sessions': { any: true },
  'GET /api/console/session': { any: true },
  'DELETE /api/console/session': { any: true },
  'POST /api/console/login-codes': { any: true },
  'GET /api/console/orgs/{orgName}/stacks': { org: 'list-stacks' },
  'GET /api/console/stacks/{orgName}/{projectName}/{stackName}': { stack: 'view' },
  [`GET ${STACK}/updates/{version}`]: { stack: 'history' },
  [`GET ${STACK}/diff`]: { stack: 'history' },
  [`GET ${ORG}/oidc/policies`]: { org: 'manage-oidc-policies' },
  [`POST ${ORG}/oidc/policies`]: { org: 'manage-oidc-policies' },
  [`DELETE ${ORG}/oidc/policies/{policyId}`]: { org: 'manage-oidc-policies' },
  // Whatever credentials come with it, the exchange judges only the ID token: an unsigned one is refused (401) for
  // every caller alike, and issues nothing (the snapshot includes every token list). test/oidc/ covers the rest.
  'POST /api/oauth/token': { oidcExchange: true },
  'POST /api/webhooks/git/{orgName}/{projectName}/{stackName}': { webhookSignature: true },
  'GET /api/deployments/runner/{deploymentId}': { runToken: true },
  'GET /api/deployments/runner/{deploymentId}/source': { runToken: true },
  ...Object.fromEntries(
    ['heartbeat', 'logs', 'cancel-updates', 'drift-found', 'remediation', 'remove-stack', 'environments', 'finish'].map((step) => [
      `POST /api/deployments/runner/{deploymentId}/${step}`,
      { runToken: true },
    ]),
  ),
  'GET /oidc/.well-known/openid-configuration': { public: true },
  'GET /oidc/.well-known/jwks': { public: true },
  'GET /api/admin/oidc-issuer/keys': { siteAdmin: true },
  'POST /api/admin/oidc-issuer/keys': { siteAdmin: true },
  [`GET ${UPDATE}/events`]: { stack: 'history' },
  // Environments: listing, checking and opening a definition that is not stored take membership only (each import its own permission).
  [`GET ${ESC}`]: { any: true },
  [`GET ${ESC}/{orgName}`]: { project: true },
  [`POST ${ESC}/{orgName}`]: { org: 'create-environment' },
  [`POST ${ESC}/{orgName}/yaml/check`]: { project: true },
  [`POST ${ESC}/{orgName}/yaml/open`]: { project: true },
  [`GET ${ESC}/{orgName}/yaml/open/{openSessionId}`]: { project: true },
  [`GET ${PREVIEW}/{orgName}`]: { project: true },
  [`POST ${PREVIEW}/{orgName}/{envName}`]: { org: 'create-environment' },
  [`POST ${PREVIEW}/{orgName}/yaml/check`]: { project: true },
  [`POST ${PREVIEW}/{orgName}/yaml/open`]: { project: true },
  [`GET ${PREVIEW}/{orgName}/yaml/open/{openSessionId}`]: { project: true },
  [`POST ${ORG}/policypacks`]: { org: 'manage-policies' },
  [`GET ${ORG}/policypacks`]: { org: 'read-policies' },
  [`DELETE ${ORG}/policypacks/{policyPackName}`]: { org: 'manage-policies' },
  [`GET ${ORG}/policypacks/{policyPackName}/versions/{versionTag}`]: { org: 'read-policies' },
  [`DELETE ${ORG}/policypacks/{policyPackName}/versions/{versionTag}`]: { org: 'manage-policies' },
  [`PUT ${ORG}/policypacks/{policyPackName}/versions/{versionTag}/upload`]: { uploadTicket: true },
  [`POST ${ORG}/policypacks/{policyPackName}/versions/{versionTag}/complete`]: { org: 'manage-policies' },
  [`GET ${ORG}/policypacks/{policyPackName}/versions/{versionTag}/schema`]: { org: 'read-policies' },
  [`GET ${ORG}/policypacks/{policyPackName}/versions/{versionTag}/download`]: { org: 'read-policies' },
  [`GET ${STACK}/policypacks`]: { stack: 'view' },
  [`GET ${ORG}/policyresults/violationsv2`]: { org: 'read-policies' },
  [`GET ${ORG}/policygroups`]: { org: 'read-policies' },
  [`POST ${ORG}/policygroups`]: { org: 'manage-policies' },
  [`GET ${ORG}/policygroups/{policyGroup}`]: { org: 'read-policies' },
  [`PATCH ${ORG}/policygroups/{policyGroup}`]: { org: 'manage-policies' },
  [`DELETE ${ORG}/policygroups/{policyGroup}`]: { org: 'manage-policies' },
  ...environmentAccess(`${ESC}/{orgName}/{projectName}/{envName}`),
  ...environmentAccess(`${PREVIEW}/{orgName}/{envName}`),
  // The console's environment reads: its list takes membership, as ESC's does; an environment's take `read`.
  'GET /api/console/environments/{orgName}': { project: true },
  'GET /api/console/environments/{orgName}/{projectName}/{envName}/diff': { environment: 'read' },
  'GET /api/console/environments/{orgName}/{projectName}/{envName}/audit': { environment: 'read' },
};
