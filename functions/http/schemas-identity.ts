import * as z from 'zod/mini';

/** Request bodies of the identity, access and OIDC routes (identity.ts, access.ts, oidc.ts). */

const ROLE = z.enum(['admin', 'member', 'viewer'], "must be 'admin', 'member' or 'viewer'");

export const createUserSchema = z.object({
  login: z.string('must be the new user\'s login'),
  name: z.optional(z.string()),
  email: z.optional(z.string()),
  admin: z.optional(z.boolean()),
});

export const createOrgSchema = z.object({ name: z.string('must be the organization name') });

export const addMemberSchema = z.object({
  login: z.string('must be the login of the user to add'),
  role: ROLE,
});

export const createTokenSchema = z.object({
  description: z.string('must describe what the token is for').check(z.minLength(1, 'must describe what the token is for')),
  login: z.optional(z.string()),
  expiresInDays: z.optional(z.number().check(z.positive('must be a positive number of days'))),
});

export const memberRoleSchema = z.object({ role: ROLE });

export const orgSettingsSchema = z.object({
  defaultStackPermission: z.enum(['none', 'read', 'write', 'admin'], "must be 'none', 'read', 'write' or 'admin'"),
});

export const createTeamSchema = z.object({
  name: z.string('must be the team name'),
  description: z.optional(z.string()),
});

/** Pulumi Cloud's team PATCH: `{"memberAction": "add"|"remove", "member": "<login>"}`. */
export const teamMemberSchema = z.object({
  memberAction: z.enum(['add', 'remove'], "must be 'add' or 'remove'"),
  member: z.string('must be the login of the member'),
});

export const stackGrantSchema = z.object({
  user: z.optional(z.string()),
  team: z.optional(z.string()),
  permission: z.nullable(z.enum(['read', 'write', 'admin'], "must be 'read', 'write', 'admin' or null")),
});

export const createOrgTokenSchema = z.object({
  description: z.string('must describe what the token is for').check(z.minLength(1, 'must describe what the token is for')),
  expiresInDays: z.optional(z.number().check(z.positive('must be a positive number of days'))),
});

/** `POST /api/orgs/{org}/oidc/policies`: the service checks the URL, patterns, kinds and lifetimes. */
export const createOidcPolicySchema = z.object({
  issuer: z.string('must be the issuer URL (the tokens\' iss claim)'),
  audiences: z.nullish(z.array(z.string('must be an audience'), 'must be a list of audiences')),
  claims: z.record(z.string(), z.string('must be a pattern'), 'must be an object of claim names to patterns'),
  tokenKind: z.enum(['organization', 'team', 'personal'], "must be 'organization', 'team' or 'personal'"),
  team: z.optional(z.string()),
  user: z.optional(z.string()),
  maxLifetimeSeconds: z.optional(z.number().check(z.int('must be a whole number of seconds'))),
  description: z.optional(z.string()),
});

/**
 * `POST /api/oauth/token`, form-encoded as the Pulumi CLI sends it (RFC 8693 §2.1). Every field is optional here so
 * the service's own checks (shared/core/oidc/exchange-request.ts) name what is missing.
 */
export const tokenExchangeFormSchema = z.object({
  grant_type: z.optional(z.string()).check(z.describe('urn:ietf:params:oauth:grant-type:token-exchange')),
  subject_token: z.optional(z.string()).check(z.describe('The OIDC ID token (a JWT)')),
  subject_token_type: z.optional(z.string()).check(z.describe('urn:ietf:params:oauth:token-type:id_token')),
  audience: z.optional(z.string()).check(z.describe('urn:pulumi:org:<organization>')),
  requested_token_type: z.optional(z.string()).check(z.describe('urn:pulumi:token-type:access_token:organization|team|personal')),
  scope: z.optional(z.string()).check(z.describe('empty, team:<name> or user:<login>')),
  expiration: z.optional(z.string()).check(z.describe('Requested lifetime in seconds')),
});
