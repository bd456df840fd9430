import * as z from 'zod/mini';

/**
 * Response bodies as the routes render them (functions/http/wire.ts and the route modules), written as zod schemas
 * only so the OpenAPI document can describe them. The routes build these objects directly; the wire tests
 * (test/api/) hold them to the Pulumi CLI's decoders. Clients must ignore unknown fields, as the Pulumi CLI does.
 */

const epochSeconds = z.number().check(z.int(), z.describe('Unix time in seconds'));

/** `{"code", "message"}`: every refusal and failure (`code` repeats the HTTP status, which the Pulumi CLI reads). */
export const errorBody = z.object({
  code: z.number().check(z.int(), z.describe('The HTTP status again')),
  message: z.string().check(z.describe('What went wrong and what to do next')),
});

/** Routes whose answer the client ignores answer `{}`. */
export const emptyObject = z.object({}).check(z.describe('An empty JSON object'));

/** A JSON object this document does not spell out field by field. */
export const jsonObject = z.record(z.string(), z.unknown());

const organization = z.object({ githubLogin: z.string(), name: z.string(), avatarUrl: z.string(), email: z.string() });

export const userBody = z.object({
  id: z.string(),
  githubLogin: z.string(),
  name: z.string(),
  email: z.string(),
  avatarUrl: z.string(),
  organizations: z.array(organization),
  identities: z.array(z.string()),
  siteAdmin: z.boolean(),
  tokenInfo: z.optional(z.object({ name: z.string(), organization: z.string(), team: z.string() })),
});

export const defaultOrgBody = z.object({ GitHubLogin: z.string(), Messages: z.array(z.unknown()) });

export const capabilitiesBody = z.object({
  capabilities: z.array(
    z.object({ capability: z.string(), version: z.optional(z.number().check(z.int())), configuration: z.optional(jsonObject) }),
  ),
});

export const packagesBody = z.object({ packages: z.array(z.unknown()), continuationToken: z.nullable(z.string()) });

const stackSummary = z.object({
  id: z.string(),
  orgName: z.string(),
  projectName: z.string(),
  stackName: z.string(),
  lastUpdate: z.optional(epochSeconds).check(z.describe('0 while an update runs')),
  resourceCount: z.optional(z.number().check(z.int())),
});

export const stackListBody = z.object({ stacks: z.array(stackSummary), continuationToken: z.optional(z.string()) });

export const stackBody = z.object({
  id: z.string(),
  orgName: z.string(),
  projectName: z.string(),
  stackName: z.string(),
  activeUpdate: z.string().check(z.describe('The running update, or empty')),
  currentOperation: z.optional(z.object({ kind: z.string(), author: z.string(), started: epochSeconds })),
  tags: z.record(z.string(), z.string()),
  config: z.optional(z.object({ environment: z.string() }).check(z.describe('Remote config: the ESC environment (`<project>/<env>`) holding the configuration'))),
  version: z.number().check(z.int()),
});

export const createdStackBody = z.extend(stackBody, { messages: z.array(z.unknown()) });

export const untypedDeploymentBody = z.object({
  version: z.number().check(z.int()),
  features: z.optional(z.array(z.string())),
  deployment: jsonObject,
});

export const updateInfoBody = z.object({
  updateID: z.string(),
  kind: z.string(),
  startTime: epochSeconds,
  endTime: z.optional(epochSeconds),
  message: z.string(),
  environment: z.optional(z.record(z.string(), z.string())),
  config: z.optional(jsonObject),
  result: z.enum(['not-started', 'in-progress', 'succeeded', 'failed']),
  version: z.optional(z.number().check(z.int())),
  resourceChanges: z.record(z.string(), z.number().check(z.int())),
  resourceCount: z.optional(z.number().check(z.int())),
  requestedBy: z.optional(z.string()),
  cancelledBy: z.optional(z.string()),
  endReason: z.optional(
    z.enum(['lease-expired', 'policy-bypassed']).check(z.describe('Set when the update was abandoned (its lease expired) or completed without its required policy packs')),
  ),
  endMessage: z.optional(z.string().check(z.describe('With policy-bypassed: the required packs that did not report, or were violated'))),
});

export const historyBody = z.object({ updates: z.array(updateInfoBody) });
export const latestUpdateBody = z.object({ info: updateInfoBody });

export const createdUpdateBody = z.object({
  updateID: z.string(),
  requiredPolicies: z.array(z.unknown()),
  messages: z.array(z.unknown()),
});

export const startedUpdateBody = z.object({
  version: z.number().check(z.int()),
  token: z.string().check(z.describe('The lease token: send it as `Authorization: update-token <token>`')),
  tokenExpiration: epochSeconds,
  journalVersion: z.union([z.literal(0), z.literal(1)]),
});

export const renewedLeaseBody = z.object({ token: z.string(), tokenExpiration: epochSeconds });

export const updateResultsBody = z.object({
  status: z.enum(['not started', 'running', 'succeeded', 'failed']),
  events: z.array(z.unknown()),
  continuationToken: z.optional(z.string()).check(z.describe('Present while the update has not finished: poll again')),
});

export const ciphertextBody = z.object({ ciphertext: z.string().check(z.describe('base64')) });
export const plaintextBody = z.object({ plaintext: z.string().check(z.describe('base64')) });
export const ciphertextsBody = z.object({ ciphertexts: z.array(z.string().check(z.describe('base64'))) });
export const plaintextsBody = z.object({
  plaintexts: z.record(z.string(), z.string()).check(z.describe('base64 plaintext by base64 ciphertext')),
});

export const newTokenBody = z.object({ id: z.string(), tokenValue: z.string().check(z.describe('Shown once; store it now')) });

const tokenView = z.object({
  id: z.string(),
  description: z.string(),
  login: z.string(),
  kind: z.string(),
  organization: z.optional(z.string()),
  team: z.optional(z.string()),
  createdBy: z.optional(z.string()),
  createdAt: epochSeconds,
  expiresAt: z.optional(epochSeconds),
  lastUsed: z.optional(epochSeconds),
});

export const tokenListBody = z.object({ tokens: z.array(tokenView) });

export const auditLogBody = z.object({
  auditLogEvents: z.array(
    z.object({
      id: z.string(),
      timestamp: epochSeconds,
      event: z.string(),
      description: z.string(),
      user: z.object({ name: z.string(), githubLogin: z.string(), avatarUrl: z.string() }),
      sourceIP: z.string(),
      tokenID: z.optional(z.string()),
      requestID: z.optional(z.string()),
      userAgent: z.optional(z.string()),
      target: z.optional(z.string()),
      outcome: z.optional(z.string()),
      count: z.optional(z.number().check(z.int(), z.describe('A refusal tally: how many refusals it stands for'))),
      lastSeen: z.optional(epochSeconds.check(z.describe("A refusal tally's latest refusal; timestamp is its first"))),
      route: z.optional(z.string().check(z.describe("A refusal tally's API route"))),
    }),
  ),
  continuationToken: z.optional(z.string()),
});

export const teamBody = z.object({ name: z.string(), description: z.optional(z.string()), members: z.array(z.string()) });
export const teamListBody = z.object({ teams: z.array(teamBody) });

/** apitype.TokenExchangeGrantResponse: what `pulumi login --oidc-token` reads. */
export const tokenExchangeBody = z.object({
  access_token: z.string(),
  issued_token_type: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().check(z.int(), z.describe('Seconds')),
  scope: z.string(),
});

export const oidcPolicyBody = z.object({
  id: z.string(),
  issuer: z.string(),
  audiences: z.array(z.string()),
  claims: z.record(z.string(), z.string()),
  tokenKind: z.enum(['organization', 'team', 'personal']),
  team: z.optional(z.string()),
  user: z.optional(z.string()),
  maxLifetimeSeconds: z.number().check(z.int()),
  description: z.string(),
  createdAt: z.number().check(z.int(), z.describe('Unix time in milliseconds')),
  createdBy: z.string(),
});
export const oidcPolicyListBody = z.object({ policies: z.array(oidcPolicyBody) });
