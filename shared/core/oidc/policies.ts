import { InvalidInputError } from '../errors.js';
import type { OidcPolicyRecord, TokenKind } from '../../ports/identity-store.js';
import { claimText, matchesClaimPattern } from './claim-pattern.js';
import { PULUMI_ORG_AUDIENCE_PREFIX } from './types.js';
import type { VerifiedIdToken } from './verify.js';

export const DEFAULT_MAX_LIFETIME_SECONDS = 2 * 60 * 60;
export const LONGEST_MAX_LIFETIME_SECONDS = 24 * 60 * 60;
const SHORTEST_MAX_LIFETIME_SECONDS = 60;
const MAX_AUDIENCES = 10;
const MAX_CLAIMS = 20;
const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,100}$/;

/** What an administrator gives to create a trust policy. */
export interface OidcPolicyInput {
  issuer: string;
  audiences?: string[];
  claims: Record<string, string>;
  tokenKind: TokenKind;
  team?: string;
  user?: string;
  maxLifetimeSeconds?: number;
  description?: string;
}

/** What an exchange asks for: Pulumi's requested token type and scope, as a token kind. */
export type RequestedToken = { kind: 'organization' } | { kind: 'team'; team: string } | { kind: 'personal'; user: string };

export function validateIssuer(issuer: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof issuer === 'string' && issuer.length <= 300 ? new URL(issuer) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidInputError(
      `Invalid issuer '${String(issuer).slice(0, 100)}': give the issuer's https URL exactly as its tokens' iss claim has it ` +
        '(e.g. https://token.actions.githubusercontent.com), without query or fragment.',
    );
  }
  return issuer as string;
}

export function validateAudiences(audiences: unknown, org: string): string[] {
  if (audiences === undefined || (Array.isArray(audiences) && audiences.length === 0)) return [`${PULUMI_ORG_AUDIENCE_PREFIX}${org}`];
  if (!Array.isArray(audiences) || audiences.length > MAX_AUDIENCES || audiences.some((a) => typeof a !== 'string' || a.length === 0 || a.length > 200)) {
    throw new InvalidInputError(`Audiences must be 1 to ${MAX_AUDIENCES} non-empty strings of at most 200 characters.`);
  }
  return [...new Set(audiences as string[])];
}

/**
 * Claim conditions. At least one must constrain something (a pattern that is not only `*`): without one, every
 * token the issuer signs for the audience would match, and on a shared issuer such as GitHub's anyone's workflow
 * can ask for any audience.
 */
export function validateClaims(claims: unknown): Record<string, string> {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new InvalidInputError('Claim conditions must be an object of claim names to patterns, e.g. {"sub": "repo:acme/infra:*"}.');
  }
  const entries = Object.entries(claims as Record<string, unknown>);
  if (entries.length > MAX_CLAIMS) throw new InvalidInputError(`A trust policy has at most ${MAX_CLAIMS} claim conditions.`);
  for (const [name, pattern] of entries) {
    if (!CLAIM_NAME.test(name) || typeof pattern !== 'string' || pattern.length === 0 || pattern.length > 300) {
      throw new InvalidInputError(`Invalid claim condition '${name.slice(0, 100)}': give a claim name and a pattern of 1 to 300 characters.`);
    }
    if (name === 'iss' || name === 'aud' || name === 'exp' || name === 'nbf' || name === 'iat') {
      throw new InvalidInputError(`Claim '${name}' is checked by the policy itself: set the issuer or audiences instead of a condition on it.`);
    }
  }
  if (!entries.some(([, pattern]) => /[^*]/.test(pattern as string))) {
    throw new InvalidInputError(
      'Give at least one claim condition that is not just "*" (e.g. --claim sub=repo:acme/infra:ref:refs/heads/main): ' +
        'otherwise every token the issuer signs for this audience would be trusted.',
    );
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

export function validateMaxLifetime(seconds: unknown): number {
  if (seconds === undefined) return DEFAULT_MAX_LIFETIME_SECONDS;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < SHORTEST_MAX_LIFETIME_SECONDS || seconds > LONGEST_MAX_LIFETIME_SECONDS) {
    throw new InvalidInputError(`The maximum token lifetime must be a whole number of seconds from ${SHORTEST_MAX_LIFETIME_SECONDS} to ${LONGEST_MAX_LIFETIME_SECONDS} (24 hours).`);
  }
  return seconds;
}

/** How a policy's token is described to people: `organization`, `team ops`, `personal (alice)`. */
export function describeKind(policy: Pick<OidcPolicyRecord, 'tokenKind' | 'team' | 'user'>): string {
  if (policy.tokenKind === 'team') return `team '${policy.team}'`;
  if (policy.tokenKind === 'personal') return `personal (user '${policy.user}')`;
  return 'organization';
}

function describeRequested(requested: RequestedToken): string {
  if (requested.kind === 'team') return `team '${requested.team}'`;
  if (requested.kind === 'personal') return `personal (user '${requested.user}')`;
  return 'organization';
}

/** Why `policy` does not let `token` have the `requested` token, or `undefined` when it does. */
export function policyMismatch(policy: OidcPolicyRecord, token: VerifiedIdToken, requested: RequestedToken): string | undefined {
  if (policy.issuer !== token.issuer) return `it trusts issuer '${policy.issuer}', not '${token.issuer}'`;
  if (!token.audiences.some((aud) => policy.audiences.includes(aud))) {
    return `audience (aud) ${JSON.stringify(token.audiences).slice(0, 300)} is not one it accepts (${policy.audiences.join(', ')})`;
  }
  for (const [name, pattern] of Object.entries(policy.claims)) {
    const raw = token.claims[name];
    if (raw === undefined) return `claim '${name}' is missing from the ID token`;
    const value = claimText(raw);
    if (value === undefined) return `claim '${name}' is not a string, number or boolean`;
    if (!matchesClaimPattern(value, pattern)) return `claim '${name}' is '${value.slice(0, 200)}', which does not match '${pattern}'`;
  }
  const same =
    policy.tokenKind === requested.kind &&
    (requested.kind !== 'team' || policy.team === requested.team) &&
    (requested.kind !== 'personal' || policy.user === requested.user);
  if (!same) return `it issues ${describeKind(policy)} tokens, not the requested ${describeRequested(requested)} token`;
  return undefined;
}
