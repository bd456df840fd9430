import * as z from 'zod/mini';
import { loginCodeSchema, signInSchema } from '../routes/console.js';
import { stackConfigSchema } from '../routes/stack-config.js';
import { untypedDeploymentSchema } from '../schemas.js';
import {
  addMemberSchema,
  createOidcPolicySchema,
  createOrgSchema,
  createOrgTokenSchema,
  createTeamSchema,
  createTokenSchema,
  createUserSchema,
  memberRoleSchema,
  orgSettingsSchema,
  stackGrantSchema,
  teamMemberSchema,
  tokenExchangeFormSchema,
} from '../schemas-identity.js';
import { batchDecryptSchema, batchEncryptSchema, decryptionLogSchema, decryptSchema, encryptSchema } from '../schemas-secrets.js';
import {
  createStackSchema,
  historyEntrySchema,
  renameStackSchema,
  rollbackSchema,
  tagsSchema,
} from '../schemas-stacks.js';
import {
  addHookSchema,
  completeUpdateSchema,
  engineEventsSchema,
  renewLeaseSchema,
  startUpdateSchema,
  updateProgramSchema,
} from '../schemas-updates.js';
import { APPROVAL_OPERATIONS } from './approval-operations.js';
import { DEPLOYMENT_OPERATIONS } from './deployment-operations.js';
import { DRIFT_OPERATIONS } from './drift-operations.js';
import { SCHEDULE_OPERATIONS } from './schedule-operations.js';
import { ENVIRONMENT_OPERATIONS } from './environment-operations.js';
import { POLICY_OPERATIONS } from './policy-operations.js';
import * as wire from './responses.js';

/**
 * What the OpenAPI document says about each route of `API_ROUTES` beyond its method and path: the request body
 * schema the route validates with (the same zod constant), query parameters, success status and answer. Keyed by
 * `"<METHOD> <path>"` exactly as the route table spells it; document.ts refuses to build when a route has no entry
 * here, or an entry names no route, so a new route fails test/api/openapi.test.ts until it is described.
 */

export type { OperationAuth, OperationDoc, QueryParameter } from './types.js';
import type { OperationDoc, QueryParameter } from './types.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
const UPDATE = `${STACK}/update/{updateId}`;
const ORG = '/api/orgs/{orgName}';
const TEAM = `${ORG}/teams/{teamName}`;

const continuation: QueryParameter = { name: 'continuationToken', description: 'The token the previous page returned', type: 'string' };
const hookLimit: QueryParameter = { name: 'limit', description: 'How many deliveries to return, newest first', type: 'integer' };
const asLogin: QueryParameter = { name: 'login', description: "Admins only: act on this user's tokens", type: 'string' };

const auditQuery: readonly QueryParameter[] = [
  { name: 'eventType', description: 'Only events of this type', type: 'string' },
  { name: 'user', description: 'Only events of this user', type: 'string' },
  { name: 'startTime', description: 'Only events at or before this Unix time (seconds)', type: 'integer' },
  { name: 'since', description: 'Only events after this Unix time (seconds)', type: 'integer' },
  { name: 'pageSize', description: 'Events per page', type: 'integer' },
  continuation,
];

/**
 * The body of the raw save routes: the service parses and checks it (integrity, sequence numbers, and the JSON types
 * described here, each a 400 naming the field), so these schemas document the service's checks; the route-table test
 * (functions/http/body-fields.test.ts) holds the service to them. Gzip (`Content-Encoding: gzip`) is accepted on
 * every body.
 */
const wholeNumber = () => z.number().check(z.int());
const positiveNumber = () => z.number().check(z.int(), z.minimum(1));
const verbatimCheckpoint = z
  .object({
    version: z.nullish(wholeNumber()),
    untypedDeployment: untypedDeploymentSchema,
    sequenceNumber: positiveNumber(),
  })
  .check(z.describe('The deployment exactly as the CLI serialised it, with its sequence number'));
const textEdit = z.object({
  Span: z.object({ start: z.object({ offset: wholeNumber() }), end: z.object({ offset: wholeNumber() }) }),
  NewText: z.string(),
});
const deltaCheckpoint = z
  .object({
    version: z.optional(z.unknown()),
    checkpointHash: z.string().check(z.regex(/^[0-9a-fA-F]{64}$/)),
    sequenceNumber: positiveNumber(),
    deploymentDelta: z.nullish(z.array(textEdit)),
  })
  .check(z.describe('A text delta against the previous checkpoint, with the hash of the result'));
const urnList = () => z.nullish(z.array(z.string()));
/** `apitype.ResourceV3`: the fields the replay computes with (others are kept as sent). */
const journalResource = z.object({
  urn: z.string(),
  type: z.string(),
  id: z.nullish(z.string()),
  custom: z.nullish(z.boolean()),
  delete: z.nullish(z.boolean()),
  pendingReplacement: z.nullish(z.boolean()),
  parent: z.nullish(z.string()),
  provider: z.nullish(z.string()),
  deletedWith: z.nullish(z.string()),
  viewOf: z.nullish(z.string()),
  dependencies: urnList(),
  aliases: urnList(),
  replaceWith: urnList(),
  propertyDependencies: z.nullish(z.record(z.string(), urnList())),
});
const journalEntries = z
  .object({
    entries: z.nullish(
      z.array(
        z.object({
          sequenceID: z.number().check(z.int(), z.minimum(0)),
          kind: z.number().check(z.int(), z.minimum(0), z.maximum(9)),
          operationID: z.nullish(wholeNumber()),
          state: z.nullish(journalResource),
          operation: z.nullish(z.object({ resource: journalResource })),
        }),
      ),
    ),
  })
  .check(z.describe('Journal entries (journalVersion 1), replayed onto the recorded base and checked for integrity'));

function hookOperations(base: string, scope: string): Record<string, OperationDoc> {
  const one = `${base}/{hookName}`;
  const tag = 'Hooks';
  return {
    [`GET ${base}`]: { summary: `List the ${scope}'s hooks`, tag, auth: 'token', response: wire.jsonObject },
    [`POST ${base}`]: { summary: `Add a hook to the ${scope}`, tag, auth: 'token', body: addHookSchema, status: 201, response: wire.jsonObject },
    [`GET ${one}`]: { summary: 'Show a hook', tag, auth: 'token', response: wire.jsonObject },
    [`DELETE ${one}`]: { summary: 'Remove a hook', tag, auth: 'token', status: 204, response: null },
    [`GET ${one}/deliveries`]: { summary: "List a hook's deliveries", tag, auth: 'token', query: [hookLimit], response: wire.jsonObject },
    [`POST ${one}/ping`]: { summary: 'Send a test delivery', tag, auth: 'token', response: wire.jsonObject },
    [`POST ${one}/deliveries/{deliveryId}/redeliver`]: { summary: 'Deliver again', tag, auth: 'token', response: wire.jsonObject },
  };
}

function tokenOperations(base: string, owner: string): Record<string, OperationDoc> {
  const tag = 'Access';
  return {
    [`POST ${base}/tokens`]: { summary: `Create ${owner} token`, tag, auth: 'token', body: createOrgTokenSchema, status: 201, response: wire.newTokenBody },
    [`GET ${base}/tokens`]: { summary: `List ${owner} tokens`, tag, auth: 'token', response: wire.tokenListBody },
    [`DELETE ${base}/tokens/{tokenId}`]: { summary: `Revoke ${owner} token`, tag, auth: 'token' },
  };
}

function updateCreation(kind: string): OperationDoc {
  return {
    summary: `Create a ${kind} (not started yet)`,
    tag: 'Updates',
    auth: 'token',
    body: updateProgramSchema,
    bodyOptional: true,
    response: wire.createdUpdateBody,
  };
}

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  // Identity: what `pulumi login` and `whoami` read.
  'GET /api/user': { summary: 'The calling user', tag: 'Identity', auth: 'token', response: wire.userBody },
  'GET /api/user/organizations/default': { summary: "The caller's default organization", tag: 'Identity', auth: 'token', response: wire.defaultOrgBody },
  'GET /api/capabilities': { summary: 'What this service supports', tag: 'Identity', auth: 'token', response: wire.capabilitiesBody },
  'GET /api/registry/packages': { summary: 'Package registry (always empty)', tag: 'Identity', auth: 'token', response: wire.packagesBody },
  'GET /api/openapi.json': { summary: 'This document', tag: 'Identity', auth: 'token', response: wire.jsonObject },
  'POST /api/users': { summary: 'Create a user (site admins)', tag: 'Identity', auth: 'token', body: createUserSchema, status: 201, response: wire.jsonObject },
  'POST /api/orgs': { summary: 'Create an organization (site admins)', tag: 'Identity', auth: 'token', body: createOrgSchema, status: 201, response: wire.jsonObject },
  'GET /api/orgs': { summary: "The caller's organizations", tag: 'Identity', auth: 'token', response: wire.jsonObject },
  [`POST ${ORG}/members`]: { summary: 'Add a member', tag: 'Access', auth: 'token', body: addMemberSchema, status: 201, response: wire.jsonObject },
  'POST /api/user/tokens': { summary: 'Create a personal token', tag: 'Identity', auth: 'token', body: createTokenSchema, status: 201, response: wire.newTokenBody },
  'GET /api/user/tokens': { summary: 'List personal tokens', tag: 'Identity', auth: 'token', query: [asLogin], response: wire.tokenListBody },
  'DELETE /api/user/tokens/{tokenId}': { summary: 'Revoke a personal token', tag: 'Identity', auth: 'token', query: [asLogin] },

  // Stacks.
  'GET /api/user/stacks': {
    summary: 'List stacks the caller can see',
    tag: 'Stacks',
    auth: 'token',
    query: [
      { name: 'organization', description: 'Only stacks of this organization', type: 'string' },
      { name: 'project', description: 'Only stacks of this project', type: 'string' },
      { name: 'tagName', description: 'Only stacks with this tag', type: 'string' },
      { name: 'tagValue', description: 'Only stacks whose tag `tagName` has this value', type: 'string' },
      continuation,
    ],
    response: wire.stackListBody,
  },
  'HEAD /api/stacks/{orgName}/{projectName}': { summary: 'Whether the project has stacks (200 or 404)', tag: 'Stacks', auth: 'token', response: null },
  'POST /api/stacks/{orgName}/{projectName}': { summary: 'Create a stack', tag: 'Stacks', auth: 'token', body: createStackSchema, response: wire.createdStackBody },
  [`GET ${STACK}`]: { summary: 'Show a stack', tag: 'Stacks', auth: 'token', response: wire.stackBody },
  [`DELETE ${STACK}`]: {
    summary: 'Remove a stack',
    tag: 'Stacks',
    auth: 'token',
    query: [{ name: 'force', description: '`true` removes a stack that still has resources', type: 'boolean' }],
  },
  [`POST ${STACK}/rename`]: { summary: 'Rename a stack (or move it to another project)', tag: 'Stacks', auth: 'token', body: renameStackSchema, response: wire.stackBody },
  [`PATCH ${STACK}/tags`]: { summary: "Replace a stack's tags", tag: 'Stacks', auth: 'token', body: tagsSchema },
  [`PUT ${STACK}/config`]: { summary: 'Link another ESC environment as the stack\'s remote configuration', tag: 'Stacks', auth: 'token', body: stackConfigSchema },
  [`GET ${STACK}/export`]: { summary: 'Export the current state', tag: 'State', auth: 'token', response: wire.untypedDeploymentBody },
  [`GET ${STACK}/export/{version}`]: { summary: 'Export the state of one version', tag: 'State', auth: 'token', response: wire.untypedDeploymentBody },
  [`POST ${STACK}/import`]: {
    summary: 'Import a state (checked for integrity)',
    tag: 'State',
    auth: 'token',
    body: untypedDeploymentSchema,
    response: z.object({ updateId: z.string() }),
  },
  [`GET ${STACK}/updates`]: {
    summary: "A stack's update history, newest first",
    tag: 'Stacks',
    auth: 'token',
    query: [
      { name: 'page', description: 'Page number, from 1', type: 'integer' },
      { name: 'pageSize', description: 'Entries per page (at most 100); absent or 0 for the whole history', type: 'integer' },
    ],
    response: wire.historyBody,
  },
  [`GET ${STACK}/updates/latest`]: { summary: 'The latest update', tag: 'Stacks', auth: 'token', response: wire.latestUpdateBody },
  [`POST ${STACK}/rollback`]: { summary: 'Restore the state of an earlier version (Stackyard)', tag: 'State', auth: 'token', body: rollbackSchema, response: wire.jsonObject },
  [`GET ${STACK}/diff`]: {
    summary: 'What changed between two versions: resources added, removed, replaced and updated (Stackyard)',
    tag: 'State',
    auth: 'token',
    query: [
      { name: 'from', description: 'the older version (default: the one before `to`; 0 is the stack before its first update)', type: 'integer' },
      { name: 'to', description: 'the newer version (default: the latest); `from > to` is the reverse diff', type: 'integer' },
      { name: 'showSecrets', description: '`true` shows secret values in plaintext (needs the decrypt permission); otherwise `[secret]`', type: 'boolean' },
    ],
    response: wire.jsonObject,
  },
  [`POST ${STACK}/history`]: { summary: "Carry over another backend's history entry (Stackyard)", tag: 'State', auth: 'token', body: historyEntrySchema, response: wire.jsonObject },

  // Updates: create, start, save, finish.
  [`POST ${STACK}/update`]: updateCreation('update'),
  [`POST ${STACK}/preview`]: updateCreation('preview'),
  [`POST ${STACK}/refresh`]: updateCreation('refresh'),
  [`POST ${STACK}/destroy`]: updateCreation('destroy'),
  [`POST ${UPDATE}`]: {
    summary: 'Start an update: takes the lease and returns its token',
    tag: 'Updates',
    auth: 'token',
    body: startUpdateSchema,
    bodyOptional: true,
    response: wire.startedUpdateBody,
  },
  [`GET ${UPDATE}`]: { summary: "An update's status", tag: 'Updates', auth: 'token', response: wire.updateResultsBody },
  [`POST ${UPDATE}/renew_lease`]: { summary: 'Renew the lease', tag: 'Updates', auth: 'update-token', body: renewLeaseSchema, bodyOptional: true, response: wire.renewedLeaseBody },
  [`PATCH ${UPDATE}/checkpoint`]: { summary: 'Save a checkpoint (checked for integrity)', tag: 'Updates', auth: 'update-token', body: untypedDeploymentSchema },
  [`PATCH ${UPDATE}/checkpointverbatim`]: { summary: 'Save a verbatim checkpoint', tag: 'Updates', auth: 'update-token', body: verbatimCheckpoint },
  [`PATCH ${UPDATE}/checkpointdelta`]: { summary: 'Save a checkpoint as a delta', tag: 'Updates', auth: 'update-token', body: deltaCheckpoint },
  [`PATCH ${UPDATE}/journalentries`]: { summary: 'Save journal entries', tag: 'Updates', auth: 'update-token', body: journalEntries },
  [`POST ${UPDATE}/events/batch`]: { summary: 'Record engine events', tag: 'Updates', auth: 'update-token', body: engineEventsSchema },
  [`POST ${UPDATE}/complete`]: { summary: 'Finish an update and release the lease', tag: 'Updates', auth: 'update-token', body: completeUpdateSchema },
  [`POST ${UPDATE}/cancel`]: { summary: 'Cancel a running update', tag: 'Updates', auth: 'token' },

  // Secrets: each stack's own data key.
  [`POST ${STACK}/encrypt`]: { summary: 'Encrypt a value', tag: 'Secrets', auth: 'token', body: encryptSchema, response: wire.ciphertextBody },
  [`POST ${STACK}/decrypt`]: { summary: 'Decrypt a value', tag: 'Secrets', auth: 'token', body: decryptSchema, response: wire.plaintextBody },
  [`POST ${STACK}/batch-encrypt`]: { summary: 'Encrypt values', tag: 'Secrets', auth: 'token', body: batchEncryptSchema, response: wire.ciphertextsBody },
  [`POST ${STACK}/batch-decrypt`]: { summary: 'Decrypt values', tag: 'Secrets', auth: 'token', body: batchDecryptSchema, response: wire.plaintextsBody },
  [`POST ${STACK}/decrypt/log-decryption`]: { summary: 'Record that a secret was shown', tag: 'Secrets', auth: 'token', body: decryptionLogSchema, bodyOptional: true },
  [`POST ${STACK}/decrypt/log-batch-decryption`]: { summary: 'Record that secrets were shown', tag: 'Secrets', auth: 'token', body: decryptionLogSchema, bodyOptional: true },

  ...hookOperations(`${ORG}/hooks`, 'organization'),
  ...hookOperations(`${STACK}/hooks`, 'stack'),

  // Access: members, teams, settings, grants, organization and team tokens.
  [`GET ${ORG}/members`]: { summary: 'List members and roles', tag: 'Access', auth: 'token', response: wire.jsonObject },
  [`PATCH ${ORG}/members/{userLogin}`]: { summary: "Change a member's role", tag: 'Access', auth: 'token', body: memberRoleSchema },
  [`DELETE ${ORG}/members/{userLogin}`]: { summary: 'Remove a member', tag: 'Access', auth: 'token' },
  [`PATCH ${ORG}/settings`]: { summary: 'Set the default stack permission', tag: 'Access', auth: 'token', body: orgSettingsSchema },
  [`GET ${ORG}/teams`]: { summary: 'List teams', tag: 'Access', auth: 'token', response: wire.teamListBody },
  [`POST ${ORG}/teams`]: { summary: 'Create a team', tag: 'Access', auth: 'token', body: createTeamSchema, status: 201, response: wire.teamBody },
  [`PATCH ${TEAM}`]: { summary: 'Add or remove a team member', tag: 'Access', auth: 'token', body: teamMemberSchema },
  [`DELETE ${TEAM}`]: { summary: 'Delete a team', tag: 'Access', auth: 'token' },
  ...tokenOperations(ORG, 'an organization'),
  ...tokenOperations(TEAM, 'a team'),
  [`GET ${STACK}/permissions`]: { summary: "A stack's grants", tag: 'Access', auth: 'token', response: wire.jsonObject },
  [`PATCH ${STACK}/permissions`]: { summary: 'Grant or revoke a stack permission', tag: 'Access', auth: 'token', body: stackGrantSchema },

  // Audit log.
  [`GET ${ORG}/auditlogs`]: { summary: "An organization's audit log", tag: 'Audit', auth: 'token', query: auditQuery, response: wire.auditLogBody },
  'GET /api/admin/auditlogs': { summary: 'The whole audit log (site admins)', tag: 'Audit', auth: 'token', query: auditQuery, response: wire.auditLogBody },

  // OIDC for CI.
  'POST /api/oauth/token': { summary: 'Exchange an OIDC ID token for an access token (RFC 8693)', tag: 'Access', auth: 'body', form: tokenExchangeFormSchema, response: wire.tokenExchangeBody },
  [`GET ${ORG}/oidc/policies`]: { summary: "An organization's OIDC trust policies", tag: 'Access', auth: 'token', response: wire.oidcPolicyListBody },
  [`POST ${ORG}/oidc/policies`]: { summary: 'Trust an OIDC issuer', tag: 'Access', auth: 'token', body: createOidcPolicySchema, status: 201, response: wire.oidcPolicyBody },
  [`DELETE ${ORG}/oidc/policies/{policyId}`]: { summary: 'Remove an OIDC trust policy', tag: 'Access', auth: 'token' },

  // Web console.
  'POST /api/console/sessions': { summary: 'Sign in to the console', tag: 'Console', auth: 'body', body: signInSchema, response: wire.jsonObject },
  'GET /api/console/session': { summary: 'The console session', tag: 'Console', auth: 'token', response: wire.jsonObject },
  'DELETE /api/console/session': { summary: 'Sign out', tag: 'Console', auth: 'token' },
  'POST /api/console/login-codes': { summary: 'A one-time console login code', tag: 'Console', auth: 'token', body: loginCodeSchema, response: wire.jsonObject },
  [`GET /api/console/orgs/{orgName}/stacks`]: { summary: "An organization's stacks for the console", tag: 'Console', auth: 'token', response: wire.jsonObject },
  [`GET /api/console/stacks/{orgName}/{projectName}/{stackName}`]: { summary: 'A stack overview for the console', tag: 'Console', auth: 'token', response: wire.jsonObject },
  [`GET ${STACK}/updates/{version}`]: { summary: 'One update by version or id', tag: 'Console', auth: 'token', response: wire.jsonObject },
  [`GET ${UPDATE}/events`]: { summary: "An update's engine events", tag: 'Console', auth: 'token', query: [continuation], response: wire.jsonObject },

  ...ENVIRONMENT_OPERATIONS,
  ...POLICY_OPERATIONS,
  ...DEPLOYMENT_OPERATIONS,
  ...DRIFT_OPERATIONS,
  ...APPROVAL_OPERATIONS,
  ...SCHEDULE_OPERATIONS,
};
