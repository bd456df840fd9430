import { createPolicyGroupSchema, createPolicyPackSchema, updatePolicyGroupSchema } from '../schemas-policy.js';
import type { OperationDoc } from './types.js';
import * as wire from './responses.js';

const PACKS = '/api/orgs/{orgName}/policypacks';
const PACK = `${PACKS}/{policyPackName}`;
const VERSION = `${PACK}/versions/{versionTag}`;
const GROUPS = '/api/orgs/{orgName}/policygroups';
const GROUP = `${GROUPS}/{policyGroup}`;
const tag = 'Policy';

/** Policy packs and groups (docs/policy.md, "Packs on the service"), and policy results. */
export const POLICY_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${PACKS}`]: { summary: 'Start publishing a pack version: its upload URI and headers (admin)', tag, auth: 'token', body: createPolicyPackSchema, response: wire.jsonObject },
  [`GET ${PACKS}`]: { summary: "The organization's packs and their published versions", tag, auth: 'token', response: wire.jsonObject },
  [`DELETE ${PACK}`]: { summary: 'Delete every version of a pack (admin)', tag, auth: 'token', status: 204 },
  [`GET ${VERSION}`]: { summary: 'A published version and its policies', tag, auth: 'token', response: wire.jsonObject },
  [`DELETE ${VERSION}`]: { summary: 'Delete a version (admin)', tag, auth: 'token', status: 204 },
  [`PUT ${VERSION}/upload`]: { summary: "Upload a pending version's tarball", tag, auth: 'upload-ticket', tarball: 'body' },
  [`POST ${VERSION}/complete`]: { summary: 'Check the uploaded tarball and publish the version (admin)', tag, auth: 'token' },
  [`GET ${VERSION}/schema`]: { summary: "Each policy's config schema", tag, auth: 'token', response: wire.jsonObject },
  [`GET ${VERSION}/download`]: { summary: "A published version's tarball (a required pack's packLocation)", tag, auth: 'token', tarball: 'answer' },
  ['GET /api/stacks/{orgName}/{projectName}/{stackName}/policypacks']: { summary: "The packs the stack's updates must run", tag, auth: 'token', response: wire.jsonObject },
  [`GET ${GROUPS}`]: { summary: "The organization's policy groups", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${GROUPS}`]: { summary: 'Create a policy group (admin)', tag, auth: 'token', body: createPolicyGroupSchema, status: 204 },
  [`GET ${GROUP}`]: { summary: 'A policy group: its stacks and enabled packs', tag, auth: 'token', response: wire.jsonObject },
  [`PATCH ${GROUP}`]: { summary: 'Add or remove stacks, enable or disable pack versions (admin)', tag, auth: 'token', body: updatePolicyGroupSchema },
  [`DELETE ${GROUP}`]: { summary: 'Delete a policy group (admin; not the default group)', tag, auth: 'token', status: 204 },
  ['GET /api/orgs/{orgName}/policyresults/violationsv2']: { summary: "The violations of each stack's latest update", tag, auth: 'token', response: wire.jsonObject },
};
