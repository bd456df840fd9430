import * as z from 'zod/mini';
import { cloneEnvironmentSchema, createEnvironmentSchema, createRevisionTagSchema, environmentGrantSchema, updateRevisionTagSchema } from '../schemas-environments.js';
import type { OperationDoc, QueryParameter } from './types.js';
import * as wire from './responses.js';

const ESC = '/api/esc/environments';
const PREVIEW = '/api/preview/environments';
const tag = 'Environments';
const continuation: QueryParameter = { name: 'continuationToken', description: 'The nextToken the previous page returned', type: 'string' };
const showSecrets: QueryParameter = { name: 'showSecrets', description: 'Show secrets in plaintext (needs open)', type: 'boolean' };
const duration: QueryParameter = { name: 'duration', description: "How long the session lives, Go's form (2h0m0s); default 1h, at most 24h", type: 'string' };
const openId = z.object({ id: z.string() });

/** One version's routes: its definition (YAML, ETag and Pulumi-ESC-Revision headers), decrypted, opened, checked. */
function versionOperations(path: string, which: string): Record<string, OperationDoc> {
  return {
    [`GET ${path}`]: { summary: `The definition (YAML) of ${which}, secrets as ciphertext`, tag, auth: 'token', yaml: true },
    [`GET ${path}/decrypt`]: { summary: `The definition (YAML) of ${which}, secrets in plaintext (open)`, tag, auth: 'token', yaml: true },
    [`POST ${path}/open`]: { summary: `Open ${which}: evaluate it and start a session`, tag, auth: 'token', query: [duration], response: openId },
    [`POST ${path}/check`]: { summary: `Check ${which}`, tag, auth: 'token', query: [showSecrets], response: wire.jsonObject },
  };
}

/** Every route of one environment, under `base`. */
function environmentOperations(base: string): Record<string, OperationDoc> {
  const tags = `${base}/versions/tags`;
  return {
    ...versionOperations(base, 'the latest revision'),
    [`PATCH ${base}`]: { summary: 'Save a new revision (YAML body; ETag or If-Match for optimistic concurrency)', tag, auth: 'token', response: wire.jsonObject },
    [`DELETE ${base}`]: { summary: 'Delete an environment', tag, auth: 'token' },
    [`GET ${base}/open/{openSessionId}`]: {
      summary: 'Read an opened environment, or one property of it',
      tag,
      auth: 'token',
      query: [{ name: 'property', description: 'A property path (a.b[0]["c"])', type: 'string' }],
      response: wire.jsonObject,
    },
    [`POST ${base}/clone`]: { summary: 'Clone an environment', tag, auth: 'token', body: cloneEnvironmentSchema, status: 204 },
    [`GET ${base}/versions`]: {
      summary: 'Revision history, newest first',
      tag,
      auth: 'token',
      query: [
        { name: 'before', description: 'Only revisions numbered below this', type: 'integer' },
        { name: 'count', description: 'At most this many (default and maximum 500)', type: 'integer' },
      ],
      response: z.array(wire.jsonObject),
    },
    ...versionOperations(`${base}/versions/{version}`, 'a revision (number or tag)'),
    [`GET ${tags}`]: { summary: 'Revision tags', tag, auth: 'token', response: wire.jsonObject },
    [`POST ${tags}`]: { summary: 'Tag a revision', tag, auth: 'token', body: createRevisionTagSchema, status: 204 },
    [`GET ${tags}/{tagName}`]: { summary: 'One revision tag', tag, auth: 'token', response: wire.jsonObject },
    [`PATCH ${tags}/{tagName}`]: { summary: 'Move a revision tag', tag, auth: 'token', body: updateRevisionTagSchema, status: 204 },
    [`DELETE ${tags}/{tagName}`]: { summary: 'Remove a revision tag', tag, auth: 'token', status: 204 },
    [`GET ${base}/permissions`]: { summary: "An environment's grants", tag, auth: 'token', response: wire.jsonObject },
    [`PATCH ${base}/permissions`]: { summary: 'Grant or revoke an environment permission', tag, auth: 'token', body: environmentGrantSchema },
  };
}

const CONSOLE = '/api/console/environments/{orgName}';
const CONSOLE_ENV = `${CONSOLE}/{projectName}/{envName}`;
const version = (name: string, which: string): QueryParameter => ({ name, description: `The ${which} version: a revision number or tag (default latest)`, type: 'string' });

/** The console's reads of environments (routes/environment-console.ts). */
const CONSOLE_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${CONSOLE}`]: { summary: "An organization's environments with their latest revision and author, for the console", tag, auth: 'token', query: [continuation], response: wire.jsonObject },
  [`GET ${CONSOLE_ENV}/diff`]: {
    summary: "Two revisions' definitions compared (a unified diff, secrets redacted)",
    tag,
    auth: 'token',
    query: [version('from', 'older'), version('to', 'newer')],
    response: wire.jsonObject,
  },
  [`GET ${CONSOLE_ENV}/audit`]: {
    summary: "An environment's audit entries (opens, saves, reveals…), newest first",
    tag,
    auth: 'token',
    query: [{ name: 'pageSize', description: 'At most this many (default 100, at most 1000)', type: 'integer' }, continuation],
    response: wire.jsonObject,
  },
};

/** Opening a definition that is not stored (how the `pulumi` CLI opens a stack's `environment:`), under `org`. */
function anonymousOpenOperations(org: string, which: string): Record<string, OperationDoc> {
  return {
    [`POST ${org}/yaml/open`]: { summary: `Open a definition (YAML body) that is not stored${which}: evaluate it and start a session`, tag, auth: 'token', query: [duration], response: openId },
    [`GET ${org}/yaml/open/{openSessionId}`]: { summary: `Read an opened definition that is not stored${which}`, tag, auth: 'token', response: wire.jsonObject },
  };
}

/** The environment routes (routes/environments.ts), ESC's and the older preview ones, and the console's. */
export const ENVIRONMENT_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${ESC}`]: { summary: "The caller's environments in every organization", tag, auth: 'token', query: [continuation], response: wire.jsonObject },
  [`GET ${ESC}/{orgName}`]: { summary: "An organization's environments", tag, auth: 'token', query: [continuation], response: wire.jsonObject },
  [`POST ${ESC}/{orgName}`]: { summary: 'Create an environment', tag, auth: 'token', body: createEnvironmentSchema },
  [`POST ${ESC}/{orgName}/yaml/check`]: { summary: 'Check a definition (YAML body) that is not stored', tag, auth: 'token', query: [showSecrets], response: wire.jsonObject },
  [`GET ${PREVIEW}/{orgName}`]: { summary: "An organization's environments (preview route)", tag, auth: 'token', query: [continuation], response: wire.jsonObject },
  [`POST ${PREVIEW}/{orgName}/{envName}`]: { summary: 'Create an environment in project default (preview route)', tag, auth: 'token' },
  [`POST ${PREVIEW}/{orgName}/yaml/check`]: { summary: 'Check a definition (preview route)', tag, auth: 'token', query: [showSecrets], response: wire.jsonObject },
  ...anonymousOpenOperations(`${ESC}/{orgName}`, ''),
  ...anonymousOpenOperations(`${PREVIEW}/{orgName}`, ' (preview route)'),
  'GET /oidc/.well-known/openid-configuration': { summary: "The OIDC discovery document of the environments' token issuer", tag, auth: 'none', response: wire.jsonObject },
  'GET /oidc/.well-known/jwks': { summary: "The public signing keys of the environments' token issuer (JWKS)", tag, auth: 'none', response: wire.jsonObject },
  'GET /api/admin/oidc-issuer/keys': { summary: "The token issuer's signing keys and their states (site admins)", tag, auth: 'token', response: wire.jsonObject },
  'POST /api/admin/oidc-issuer/keys': { summary: "Rotate the token issuer's signing key: make the next key (site admins)", tag, auth: 'token', status: 201, response: wire.jsonObject },
  ...environmentOperations(`${ESC}/{orgName}/{projectName}/{envName}`),
  ...environmentOperations(`${PREVIEW}/{orgName}/{envName}`),
  ...CONSOLE_OPERATIONS,
};
