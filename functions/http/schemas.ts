import * as z from 'zod';

/**
 * Request bodies as the Pulumi CLI (and Stackyard's CLI) send them. Go serializes nil maps and slices as `null`, so
 * optional collections accept `null` too. Unknown keys are ignored, like Go's decoder does.
 */

/** Standard base64 with padding (RFC 4648 §4), which is how Go encodes `[]byte`. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const base64String = z.string().regex(BASE64, 'must be standard base64 with padding');

const stringMap = z.record(z.string(), z.string());

export const untypedDeploymentSchema = z.object({
  version: z.number().int().min(1, 'must be a deployment schema version (1 to 4)').max(4, 'must be a deployment schema version (1 to 4)'),
  features: z.array(z.string()).nullish(),
  deployment: z.record(z.string(), z.unknown(), 'must be a JSON object (the deployment)'),
});

export const createStackSchema = z.object({
  stackName: z.string('must be the name of the new stack'),
  tags: stringMap.nullish(),
  teams: z.array(z.string()).nullish(),
  state: untypedDeploymentSchema.nullish(),
  config: z.unknown().optional(),
});

export const renameStackSchema = z.object({
  newName: z.string('must be the new stack name'),
  newProject: z.string().nullish(),
});

export const tagsSchema = stringMap;

export const updateProgramSchema = z.object({
  name: z.string().nullish(),
  runtime: z.string().nullish(),
  main: z.string().nullish(),
  description: z.string().nullish(),
  options: z.object({ dryRun: z.boolean().nullish() }).nullish(),
  config: z.record(z.string(), z.unknown()).nullish(),
  metadata: z
    .object({
      message: z.string().nullish(),
      environment: stringMap.nullish(),
    })
    .nullish(),
});

export const startUpdateSchema = z
  .object({
    tags: stringMap.nullish(),
    journalVersion: z.number().int().nullish(),
    /** Stackyard extension: how long the lease lasts before renewal (clamped by the service). */
    leaseDurationSeconds: z.number().int().positive('must be a positive number of seconds').nullish(),
  })
  .optional();

export const renewLeaseSchema = z
  .object({
    token: z.string().nullish(),
    duration: z.number().int().nonnegative('must be a number of seconds').nullish(),
  })
  .optional();

export const engineEventsSchema = z.object({
  events: z.array(z.unknown(), 'must be an array of engine events').nullable(),
});

export const completeUpdateSchema = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled'], "must be 'succeeded', 'failed' or 'cancelled'"),
});

export const encryptSchema = z.object({ plaintext: base64String });
export const decryptSchema = z.object({ ciphertext: base64String });
export const batchEncryptSchema = z.object({ plaintexts: z.array(base64String).nullable() });
export const batchDecryptSchema = z.object({ ciphertexts: z.array(base64String).nullable() });

export const createUserSchema = z.object({
  login: z.string('must be the new user\'s login'),
  name: z.string().optional(),
  email: z.string().optional(),
  admin: z.boolean().optional(),
});

export const createOrgSchema = z.object({ name: z.string('must be the organization name') });

const ROLE = z.enum(['admin', 'member', 'viewer'], "must be 'admin', 'member' or 'viewer'");

export const addMemberSchema = z.object({
  login: z.string('must be the login of the user to add'),
  role: ROLE,
});

export const memberRoleSchema = z.object({ role: ROLE });

export const orgSettingsSchema = z.object({
  defaultStackPermission: z.enum(['none', 'read', 'write', 'admin'], "must be 'none', 'read', 'write' or 'admin'"),
});

export const createTeamSchema = z.object({
  name: z.string('must be the team name'),
  description: z.string().optional(),
});

/** Pulumi Cloud's team PATCH: `{"memberAction": "add"|"remove", "member": "<login>"}`. */
export const teamMemberSchema = z.object({
  memberAction: z.enum(['add', 'remove'], "must be 'add' or 'remove'"),
  member: z.string('must be the login of the member'),
});

export const stackGrantSchema = z.object({
  user: z.string().optional(),
  team: z.string().optional(),
  permission: z.enum(['read', 'write', 'admin'], "must be 'read', 'write', 'admin' or null").nullable(),
});

export const createOrgTokenSchema = z.object({
  description: z.string('must describe what the token is for').min(1, 'must describe what the token is for'),
  expiresInDays: z.number().positive('must be a positive number of days').optional(),
});

export const createTokenSchema = z.object({
  description: z.string('must describe what the token is for').min(1, 'must describe what the token is for'),
  login: z.string().optional(),
  expiresInDays: z.number().positive('must be a positive number of days').optional(),
});

/** `POST …/hooks`: the service checks names, URLs, ARNs and events; here only the JSON types. */
export const addHookSchema = z.object({
  name: z.string('must be the hook name'),
  url: z.string('must be the https:// URL deliveries are posted to').optional(),
  secret: z.string('must be the signing secret (a string)').optional(),
  lambdaArn: z.string('must be the ARN of the Lambda function to invoke').optional(),
  events: z.array(z.string('must be an event name'), 'must be a list of event names').nullish(),
  active: z.boolean().optional(),
  gate: z.boolean().optional(),
  failOpen: z.boolean().optional(),
});

/** `POST /api/orgs/{org}/oidc/policies`: the service checks the URL, patterns, kinds and lifetimes. */
export const createOidcPolicySchema = z.object({
  issuer: z.string('must be the issuer URL (the tokens\' iss claim)'),
  audiences: z.array(z.string('must be an audience'), 'must be a list of audiences').nullish(),
  claims: z.record(z.string(), z.string('must be a pattern'), 'must be an object of claim names to patterns'),
  tokenKind: z.enum(['organization', 'team', 'personal'], "must be 'organization', 'team' or 'personal'"),
  team: z.string().optional(),
  user: z.string().optional(),
  maxLifetimeSeconds: z.number().int('must be a whole number of seconds').optional(),
  description: z.string().optional(),
});


/**
 * `POST /api/oauth/token`, form-encoded as the Pulumi CLI sends it (RFC 8693 §2.1). Every field is optional here so
 * the service's own checks (shared/core/oidc/exchange-request.ts) name what is missing.
 */
export const tokenExchangeFormSchema = z.object({
  grant_type: z.string().optional().describe('urn:ietf:params:oauth:grant-type:token-exchange'),
  subject_token: z.string().optional().describe('The OIDC ID token (a JWT)'),
  subject_token_type: z.string().optional().describe('urn:ietf:params:oauth:token-type:id_token'),
  audience: z.string().optional().describe('urn:pulumi:org:<organization>'),
  requested_token_type: z.string().optional().describe('urn:pulumi:token-type:access_token:organization|team|personal'),
  scope: z.string().optional().describe('empty, team:<name> or user:<login>'),
  expiration: z.string().optional().describe('Requested lifetime in seconds'),
});
