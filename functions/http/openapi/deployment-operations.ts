import { createDeploymentSchema, createSourceUploadSchema, deploymentSettingsPatchSchema, encryptDeploymentSecretSchema, runnerEnvironmentsSchema, runnerFinishSchema, runnerLogSchema } from '../schemas-deployments.js';
import type { OperationDoc, QueryParameter } from './types.js';
import * as wire from './responses.js';

const DEPLOYMENTS = '/api/stacks/{orgName}/{projectName}/{stackName}/deployments';
const RUN = `${DEPLOYMENTS}/{deploymentId}`;
const RUNNER = '/api/deployments/runner/{deploymentId}';
const tag = 'Deployments';
const logQuery: readonly QueryParameter[] = [
  { name: 'offset', description: 'The first line to return (0-based)', type: 'integer' },
  { name: 'count', description: 'How many lines at most (1000)', type: 'integer' },
  { name: 'continuationToken', description: 'The nextToken the previous page returned', type: 'string' },
];

/** Deployment settings and runs (docs/deployments.md). */
export const DEPLOYMENT_OPERATIONS: Record<string, OperationDoc> = {
  'POST /api/webhooks/git/{orgName}/{projectName}/{stackName}': {
    summary: "A push webhook (GitHub, GitLab or generic), signed with the stack's secret: 202 when it queued a run, 200 when it asked none; 401 unsigned, 409 replayed",
    tag,
    auth: 'none',
    response: wire.jsonObject,
  },
  [`GET ${DEPLOYMENTS}/settings`]: { summary: "The stack's deployment settings, secrets sealed", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${DEPLOYMENTS}/settings`]: {
    summary: 'Merge a patch into the deployment settings (admin)',
    tag,
    auth: 'token',
    body: deploymentSettingsPatchSchema,
    response: wire.jsonObject,
  },
  [`DELETE ${DEPLOYMENTS}/settings`]: { summary: 'Remove the deployment settings (admin)', tag, auth: 'token', status: 204 },
  [`POST ${DEPLOYMENTS}/settings/encrypt`]: {
    summary: "Seal a secret under the stack's key (admin)",
    tag,
    auth: 'token',
    body: encryptDeploymentSecretSchema,
    response: wire.jsonObject,
  },
  [`POST ${DEPLOYMENTS}`]: { summary: 'Queue a deployment run', tag, auth: 'token', body: createDeploymentSchema, response: wire.jsonObject },
  [`POST ${DEPLOYMENTS}/sources`]: {
    summary: "Declare a program archive (size, SHA-256) to upload as a run's source: its id and where to PUT it (presigned S3 on AWS)",
    tag,
    auth: 'token',
    body: createSourceUploadSchema,
    response: wire.jsonObject,
  },
  [`PUT ${DEPLOYMENTS}/sources/{archiveId}`]: { summary: 'Upload a declared program archive through the API (local storage)', tag, auth: 'token', tarball: 'body', status: 204 },
  [`GET ${DEPLOYMENTS}`]: {
    summary: "The stack's runs, newest first",
    tag,
    auth: 'token',
    query: [{ name: 'pageSize', description: 'Runs per page (at most 100)', type: 'integer' }],
    response: wire.jsonObject,
  },
  [`GET ${RUN}`]: { summary: 'One run', tag, auth: 'token', response: wire.jsonObject },
  [`POST ${RUN}/cancel`]: { summary: 'Cancel a run (and its update)', tag, auth: 'token', response: wire.jsonObject },
  [`GET ${RUN}/logs`]: { summary: "A run's log", tag, auth: 'token', query: logQuery, response: wire.jsonObject },
  [`GET ${RUN}/updates`]: { summary: 'The updates a run made', tag, auth: 'token', response: wire.jsonObject },
  [`GET ${RUNNER}`]: { summary: "The run's source, environment and options, for its runner (the run's token only)", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${RUNNER}/heartbeat`]: { summary: "Keep the runner's claim on the run; says whether a cancel was asked for", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${RUNNER}/logs`]: { summary: "Append lines to the run's log (the run's token only)", tag, auth: 'token', body: runnerLogSchema, status: 204 },
  [`POST ${RUNNER}/cancel-updates`]: { summary: "Cancel the run's updates still running (the run's token only)", tag, auth: 'token', status: 204 },
  [`POST ${RUNNER}/drift-found`]: { summary: "Whether the run's drift detection found drift (the run's token only)", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${RUNNER}/remediation`]: { summary: "Record the run's remediation on its drift run (the run's token only)", tag, auth: 'token', status: 204 },
  [`POST ${RUNNER}/remove-stack`]: { summary: 'Remove the stack a destroy run with deleteAfterDestroy emptied (the run\'s token only)', tag, auth: 'token', status: 204 },
  [`POST ${RUNNER}/environments`]: { summary: "Fix, once, the ESC environments the run's stack imports and its token may open (the run's token only)", tag, auth: 'token', body: runnerEnvironmentsSchema, status: 204 },
  [`GET ${RUNNER}/source`]: { summary: "The program archive the run was queued with (the run's token only)", tag, auth: 'token', tarball: 'answer' },
  [`POST ${RUNNER}/finish`]: { summary: "Record the run's result and revoke its token (the run's token only)", tag, auth: 'token', body: runnerFinishSchema, status: 204 },
};
