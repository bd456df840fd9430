import { randomBytes, randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { validateOrgName } from '../names.js';
import { tokenOwnerKey, type OidcPolicyRecord, type TokenRecord } from '../../ports/identity-store.js';
import { auditAuthenticationFailure, audited } from '../audit/audit.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { API_TOKEN_PREFIX, hashApiToken, optionalText } from '../identity/identity-service.js';
import { validateTeamName } from '../access/access-service.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';
import type { TokenExchangeRequest } from './exchange-request.js';
import { httpsJsonFetcher } from './https-json.js';
import { IssuerKeySource } from './key-source.js';
import {
  describeKind,
  policyMismatch,
  validateAudiences,
  validateClaims,
  validateIssuer,
  validateMaxLifetime,
  type OidcPolicyInput,
} from './policies.js';
import { IssuerUnavailableError, OidcRefusalError } from './refusal.js';
import { PULUMI_TOKEN_TYPES } from './types.js';
import { verifyIdToken } from './verify.js';

/** Trust policies per organization; every exchange reads them all. */
const MAX_POLICIES = 50;
const DEFAULT_CLOCK_SKEW_SECONDS = 60;
const DEFAULT_KEYS_CACHE_MS = 10 * 60 * 1000;
const DEFAULT_UNKNOWN_KID_REFETCH_MS = 10_000;

/** The answer of a token exchange, as `apitype.TokenExchangeGrantResponse` reads it. */
export interface TokenExchangeResult {
  accessToken: string;
  issuedTokenType: string;
  expiresInSeconds: number;
  scope: string;
  record: TokenRecord;
}

/** OIDC for CI: organizations' trust policies, and the exchange of a trusted ID token for a Stackyard token. */
export interface OidcService {
  createPolicy(principal: Principal, org: string, input: OidcPolicyInput): Promise<OidcPolicyRecord>;
  listPolicies(principal: Principal, org: string): Promise<OidcPolicyRecord[]>;
  deletePolicy(principal: Principal, org: string, id: string): Promise<void>;
  /** Unauthenticated by design: the ID token is the credential. Every refusal is audited as an authentication failure. */
  exchange(request: TokenExchangeRequest, info?: RequestInfo): Promise<TokenExchangeResult>;
}

export function createOidcService(deps: ServiceDeps): OidcService {
  const identity = deps.storage.identity;
  const options = deps.options.oidc ?? {};
  const clockSkewSeconds = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  const keys = new IssuerKeySource({
    fetchJson: options.fetchJson ?? httpsJsonFetcher({ allowPrivate: process.env.STACKYARD_OIDC_ALLOW_PRIVATE === 'true' }),
    now: deps.now,
    cacheMs: options.keysCacheMs ?? DEFAULT_KEYS_CACHE_MS,
    unknownKidRefetchMs: options.unknownKidRefetchMs ?? DEFAULT_UNKNOWN_KID_REFETCH_MS,
  });

  async function requireOrg(org: string): Promise<void> {
    await identity.getOrg(validateOrgName(org)).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError(`Organization '${org}' not found: create it first.`, { cause: error });
      throw error;
    });
  }

  /** What the issued token may be: the policy's team must exist, its user must still be a member. */
  async function requireTarget(org: string, kind: OidcPolicyRecord['tokenKind'], team?: string, user?: string): Promise<void> {
    if (kind === 'team') {
      await identity.getTeam(org, validateTeamName(team)).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new NotFoundError(`Team '${team}' not found in '${org}': create it first (stackyard team create).`, { cause: error });
        throw error;
      });
    } else if (kind === 'personal') {
      const member = (await identity.listMemberships(String(user))).some((m) => m.org === org);
      if (!member) throw new NotFoundError(`'${user}' is not a member of '${org}'.`);
    }
  }

  /** Refusals go to the organization's log when it trusts some issuer, else to the site log (no org can be spammed by name). */
  async function refuse(error: Error, org: string | undefined, info: RequestInfo | undefined, subject?: string): Promise<never> {
    const reason = `OIDC token exchange refused: ${error.message}`;
    const known = org === undefined ? undefined : { org, actor: subject ? `oidc:${subject.slice(0, 200)}` : 'oidc' };
    await auditAuthenticationFailure(deps, info, reason.slice(0, 1000), known);
    throw error;
  }

  return {
    async createPolicy(principal, org, input) {
      requireOrgAction(principal, org, 'manage-oidc-policies');
      if (!input || typeof input !== 'object') throw new InvalidInputError('Give the trust policy as an object.');
      const tokenKind = input.tokenKind;
      if (tokenKind !== 'organization' && tokenKind !== 'team' && tokenKind !== 'personal') {
        throw new InvalidInputError("The token kind must be 'organization', 'team' or 'personal'.");
      }
      if ((tokenKind === 'team') !== (input.team !== undefined) || (tokenKind === 'personal') !== (input.user !== undefined)) {
        throw new InvalidInputError('Name a team exactly for team tokens and a user exactly for personal tokens.');
      }
      if (tokenKind === 'personal' && input.user !== principal.login) {
        // A personal token acts in every organization of its user, so only that user may let CI act as them.
        throw new InvalidInputError(`A personal-token policy can only name yourself ('${principal.login}'): '${input.user}' must create it.`);
      }
      const policy: OidcPolicyRecord = {
        org,
        id: randomUUID(),
        issuer: validateIssuer(input.issuer),
        audiences: validateAudiences(input.audiences, org),
        claims: validateClaims(input.claims),
        tokenKind,
        ...(tokenKind === 'team' ? { team: validateTeamName(input.team) } : {}),
        ...(tokenKind === 'personal' ? { user: principal.login } : {}),
        maxLifetimeSeconds: validateMaxLifetime(input.maxLifetimeSeconds),
        description: optionalText(input.description, 'description', 200) ?? '',
        createdAt: deps.now(),
        createdBy: principal.login,
      };
      await requireOrg(org);
      await requireTarget(org, tokenKind, policy.team, policy.user);
      const description = `trusted OIDC issuer ${policy.issuer} for ${describeKind(policy)} tokens (policy ${policy.id}, claims ${JSON.stringify(policy.claims).slice(0, 300)})`;
      // The store enforces the cap in the write itself (OidcPolicyLimitError): a count read first would let
      // concurrent adds all pass it.
      await audited(deps, principal, { org, event: 'oidc.policy-created', target: `oidc policy ${policy.id}`, description }, () =>
        identity.createOidcPolicy(policy, MAX_POLICIES),
      );
      return policy;
    },

    async listPolicies(principal, org) {
      requireOrgAction(principal, org, 'manage-oidc-policies');
      await requireOrg(org);
      return identity.listOidcPolicies(org);
    },

    async deletePolicy(principal, org, id) {
      requireOrgAction(principal, org, 'manage-oidc-policies');
      if (typeof id !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(id)) throw new InvalidInputError('Give the id of the trust policy (stackyard org oidc-policy ls).');
      const existing = (await identity.listOidcPolicies(validateOrgName(org))).find((p) => p.id === id);
      if (!existing) throw new NotFoundError(`OIDC trust policy '${id}' not found in '${org}': list them with 'stackyard org oidc-policy ls ${org}'.`);
      await audited(deps, principal, { org, event: 'oidc.policy-deleted', target: `oidc policy ${id}`, description: `removed the trust in ${existing.issuer} for ${describeKind(existing)} tokens (policy ${id})` }, () =>
        identity.deleteOidcPolicy(org, id),
      );
    },

    async exchange(request, info) {
      const { org, requested } = request;
      const policies = await identity.listOidcPolicies(org);
      const logOrg = policies.length > 0 ? org : undefined;
      if (policies.length === 0) {
        return refuse(new OidcRefusalError(`organization '${org}' trusts no OIDC issuer: an administrator adds a trust policy first (stackyard org oidc-policy add)`), undefined, info);
      }
      const token = await verifyIdToken(request.subjectToken, {
        keys,
        now: deps.now(),
        clockSkewSeconds,
        isTrustedIssuer: (issuer) => policies.some((p) => p.issuer === issuer),
      }).catch((error: unknown) =>
        error instanceof OidcRefusalError || error instanceof IssuerUnavailableError ? refuse(error, logOrg, info) : Promise.reject(error),
      );

      const candidates = policies.filter((p) => p.issuer === token.issuer);
      const reasons: string[] = [];
      const policy = candidates.find((candidate) => {
        const mismatch = policyMismatch(candidate, token, requested);
        if (mismatch) reasons.push(candidates.length === 1 ? mismatch : `policy ${candidate.id}: ${mismatch}`);
        return mismatch === undefined;
      });
      if (!policy) return refuse(new OidcRefusalError(`no trust policy of '${org}' matches: ${reasons.join('; ')}`), logOrg, info, token.subject);
      await requireTarget(org, policy.tokenKind, policy.team, policy.user).catch((error: unknown) =>
        error instanceof NotFoundError ? refuse(new OidcRefusalError(`trust policy ${policy.id} maps to a token that cannot be issued: ${error.message}`), logOrg, info, token.subject) : Promise.reject(error),
      );

      const lifetime = Math.min(request.expirationSeconds ?? policy.maxLifetimeSeconds, policy.maxLifetimeSeconds);
      const accessToken = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const now = deps.now();
      const owner = policy.tokenKind === 'personal' ? policy.user! : tokenOwnerKey(policy.tokenKind, org, policy.team);
      const record: TokenRecord = {
        id: randomUUID(),
        tokenHash: hashApiToken(accessToken),
        login: owner,
        description: `OIDC ${token.subject}`.slice(0, 200),
        createdAt: now,
        expiresAt: now + lifetime * 1000,
        kind: policy.tokenKind,
        ...(policy.tokenKind !== 'personal' ? { org } : {}),
        ...(policy.team !== undefined ? { team: policy.team } : {}),
        createdBy: `oidc:${policy.id}`,
      };
      const actor: Principal = { login: `oidc:${token.subject.slice(0, 200)}`, orgs: [], admin: false, roles: {}, ...(info ? { request: info } : {}) };
      const description =
        `issued a ${describeKind(policy)} token ${record.id} for ${lifetime} s to OIDC subject '${token.subject.slice(0, 200)}' of ` +
        `${token.issuer} (trust policy ${policy.id})`;
      await audited(deps, actor, { org, event: 'oidc.token-issued', target: `token ${record.id}`, description }, () => identity.putToken(record));
      const scope = requested.kind === 'team' ? `team:${requested.team}` : requested.kind === 'personal' ? `user:${requested.user}` : '';
      return { accessToken, issuedTokenType: PULUMI_TOKEN_TYPES[policy.tokenKind], expiresInSeconds: lifetime, scope, record };
    },
  };
}
