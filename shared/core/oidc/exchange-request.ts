import { InvalidInputError } from '../errors.js';
import { validateOrgName } from '../names.js';
import type { RequestedToken } from './policies.js';
import { ID_TOKEN_TYPE, PULUMI_ORG_AUDIENCE_PREFIX, PULUMI_TOKEN_TYPES, TOKEN_EXCHANGE_GRANT } from './types.js';

const MAX_SUBJECT_TOKEN_LENGTH = 16 * 1024;

/** A token exchange as `pulumi login --oidc-token` sends it (RFC 8693 §2.1, form-encoded). */
export interface TokenExchangeRequest {
  org: string;
  subjectToken: string;
  requested: RequestedToken;
  /** Seconds; absent = the policy's maximum. */
  expirationSeconds?: number;
}

/**
 * Reads the form fields of `POST /api/oauth/token`. Malformed requests are the caller's mistake (400, RFC 6749
 * §5.2 `invalid_request`) and are refused before any token is looked at.
 */
export function parseTokenExchange(form: Readonly<Record<string, string | undefined>>): TokenExchangeRequest {
  const field = (name: string) => form[name];
  const grantType = field('grant_type');
  if (grantType === 'refresh_token') {
    throw new InvalidInputError(
      "grant_type 'refresh_token' is not supported: Stackyard issues no refresh tokens (unsupported_grant_type); log in " +
        'again with `pulumi login --oidc-token` or an access token.',
    );
  }
  if (grantType !== TOKEN_EXCHANGE_GRANT) {
    throw new InvalidInputError(`grant_type must be '${TOKEN_EXCHANGE_GRANT}' (unsupported_grant_type), got '${String(grantType ?? '').slice(0, 80)}'.`);
  }
  if (field('subject_token_type') !== ID_TOKEN_TYPE) {
    throw new InvalidInputError(`subject_token_type must be '${ID_TOKEN_TYPE}': only OIDC ID tokens are exchanged.`);
  }
  const subjectToken = field('subject_token');
  if (!subjectToken || subjectToken.length > MAX_SUBJECT_TOKEN_LENGTH) {
    throw new InvalidInputError(`subject_token must be the OIDC ID token (at most ${MAX_SUBJECT_TOKEN_LENGTH} characters).`);
  }
  const audience = field('audience') ?? '';
  if (!audience.startsWith(PULUMI_ORG_AUDIENCE_PREFIX)) {
    throw new InvalidInputError(`audience must be '${PULUMI_ORG_AUDIENCE_PREFIX}<organization>' (pulumi login --oidc-org), got '${audience.slice(0, 100)}'.`);
  }
  const org = validateOrgName(audience.slice(PULUMI_ORG_AUDIENCE_PREFIX.length));
  const requested = requestedToken(field('requested_token_type'), field('scope') ?? '');
  const expiration = field('expiration');
  let expirationSeconds: number | undefined;
  if (expiration !== undefined && expiration !== '') {
    expirationSeconds = Number(expiration);
    if (!/^\d+$/.test(expiration) || !Number.isSafeInteger(expirationSeconds) || expirationSeconds <= 0) {
      throw new InvalidInputError(`expiration must be a positive whole number of seconds (pulumi login --oidc-expiration), got '${expiration.slice(0, 40)}'.`);
    }
  }
  return { org, subjectToken, requested, ...(expirationSeconds !== undefined ? { expirationSeconds } : {}) };
}

/** The Pulumi CLI derives the requested token type from the scope; both must agree. */
function requestedToken(type: string | undefined, scope: string): RequestedToken {
  const team = /^team:(.+)$/.exec(scope)?.[1];
  const user = /^user:(.+)$/.exec(scope)?.[1];
  if (type === PULUMI_TOKEN_TYPES.organization && scope === '') return { kind: 'organization' };
  if (type === PULUMI_TOKEN_TYPES.team && team) return { kind: 'team', team };
  if (type === PULUMI_TOKEN_TYPES.personal && user) return { kind: 'personal', user };
  throw new InvalidInputError(
    `requested_token_type '${String(type ?? '').slice(0, 80)}' with scope '${scope.slice(0, 80)}' is not a token Stackyard issues: ask for ` +
      `'${PULUMI_TOKEN_TYPES.organization}' with no scope, '${PULUMI_TOKEN_TYPES.team}' with scope team:<name>, or ` +
      `'${PULUMI_TOKEN_TYPES.personal}' with scope user:<login>.`,
  );
}
