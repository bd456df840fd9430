/**
 * `login --oidc-token`: the RFC 8693 exchange `pulumi login --oidc-token` performs (pkg/backend/httpstate: the token
 * from the flag or a `file://` path, the organization, team and user defaulted from the token's `aud` and `scope`
 * claims, `POST /api/oauth/token` form-encoded), then a normal login with the token it answers.
 */
import { promises as fs } from 'node:fs';
import { ApiClient, normalizeServiceUrl } from '../api-client/api-client.js';
import { ApiError } from '../api-client/api-error.js';
import { parseDurationSeconds } from '../engine/go-formats/durations.js';
import { UserError } from '../output/errors.js';

const ORG_AUDIENCE = 'urn:pulumi:org:';
/** The Pulumi CLI's default lifetime of the exchanged token. */
const DEFAULT_EXPIRATION_SECONDS = 2 * 60 * 60;

export interface OidcLoginOptions {
  oidcToken?: string;
  oidcOrg?: string;
  oidcTeam?: string;
  oidcUser?: string;
  oidcExpiration?: string;
}

export interface ExchangedToken {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A JWT's claims without checking its signature (the service checks it); `undefined` when it is not a JWT. */
function unverifiedClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    if (!header || typeof header !== 'object' || !claims || typeof claims !== 'object' || Array.isArray(claims)) return undefined;
    return claims as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The token itself, or the contents of `file://<path>` (trimmed), as the Pulumi CLI reads `--oidc-token`. */
export async function readOidcToken(source: string): Promise<string> {
  if (unverifiedClaims(source)) return source;
  if (!source.startsWith('file://')) {
    throw new UserError(`--oidc-token must be a JWT or 'file://<path>'`, 'Pass the ID token your CI provider issued, or file:// and the path of a file holding it.');
  }
  const path = source.slice('file://'.length);
  let text: string;
  try {
    text = (await fs.readFile(path, 'utf8')).trim();
  } catch (error) {
    throw new UserError(`cannot read the OIDC token from '${path}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'Check the path after file://.');
  }
  if (text === '') throw new UserError(`the OIDC token file '${path}' is empty`, 'Write the ID token into it first.');
  if (!unverifiedClaims(text)) throw new UserError(`the OIDC token file '${path}' does not hold a JWT`, 'It must hold the ID token your CI provider issued.');
  return text;
}

/**
 * Organization, team and user: the flags, defaulted from the token's `aud` (`urn:pulumi:org:<org>`) and `scope`
 * (`team:<name>`, `user:<login>`) claims; a flag that contradicts the token is an error, as in the Pulumi CLI.
 */
export function oidcTarget(options: OidcLoginOptions, token: string): { org: string; team?: string; user?: string } {
  const claims = unverifiedClaims(token) ?? {};
  const aud = typeof claims.aud === 'string' && claims.aud.startsWith(ORG_AUDIENCE) && claims.aud.split(':').length === 4 ? claims.aud.slice(ORG_AUDIENCE.length) : undefined;
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(/\s+/) : Array.isArray(claims.scope) ? claims.scope.filter((s): s is string => typeof s === 'string') : [];
  let tokenTeam: string | undefined;
  let tokenUser: string | undefined;
  for (const scope of scopes) {
    if (scope.startsWith('team:')) tokenTeam = scope.slice('team:'.length);
    else if (scope.startsWith('user:')) tokenUser = scope.slice('user:'.length);
  }
  if (tokenTeam && tokenUser) {
    throw new UserError(`the token's scope names both team '${tokenTeam}' and user '${tokenUser}'`, 'Only one of a team or a user may be exchanged for.');
  }
  const conflict = (flag: string, given: string | undefined, fromToken: string | undefined, claim: string) => {
    if (given && fromToken && given !== fromToken) {
      throw new UserError(`${flag} '${given}' conflicts with the token's ${claim} '${fromToken}'`, `Omit ${flag} to use the token's value, or make them match.`);
    }
  };
  conflict('--oidc-org', options.oidcOrg, aud, 'aud organization');
  conflict('--oidc-team', options.oidcTeam, tokenTeam, 'scope team');
  conflict('--oidc-user', options.oidcUser, tokenUser, 'scope user');
  const org = options.oidcOrg || aud;
  const team = options.oidcTeam || tokenTeam;
  const user = options.oidcUser || tokenUser;
  if (!org) throw new UserError('the organization must be given for the OIDC token exchange', 'Pass --oidc-org <organization>.');
  if (team && user) throw new UserError('only one of --oidc-team or --oidc-user may be given', 'A team token or a personal token: choose one.');
  return { org, ...(team ? { team } : {}), ...(user ? { user } : {}) };
}

/** `--oidc-expiration` in Go's duration syntax (`15m`, `24h`), whole seconds; default 2 hours. */
export function oidcExpirationSeconds(text: string | undefined): number {
  if (text === undefined) return DEFAULT_EXPIRATION_SECONDS;
  const seconds = parseDurationSeconds(text);
  if (seconds === undefined || Math.trunc(seconds) < 1) {
    throw new UserError(`could not parse expiration duration '${text}'`, 'Give a duration such as 15m, 2h or 24h.');
  }
  return Math.trunc(seconds);
}

/** Exchanges the ID token at `url`; the service decides (and says why it refuses). */
export async function exchangeOidcToken(url: string, options: OidcLoginOptions): Promise<ExchangedToken> {
  const token = await readOidcToken(options.oidcToken!);
  const target = oidcTarget(options, token);
  const expiration = oidcExpirationSeconds(options.oidcExpiration);
  const kind = target.team ? 'team' : target.user ? 'personal' : 'organization';
  const started = Date.now();
  const client = new ApiClient(normalizeServiceUrl(url), undefined);
  try {
    const answer = await client.request<{ access_token?: string; expires_in?: number }>({
      method: 'POST',
      path: '/api/oauth/token',
      form: {
        audience: `${ORG_AUDIENCE}${target.org}`,
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: `urn:pulumi:token-type:access_token:${kind}`,
        scope: target.team ? `team:${target.team}` : target.user ? `user:${target.user}` : '',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        subject_token: token,
        expiration: String(expiration),
      },
      operation: 'exchange the OIDC token',
    });
    if (!answer?.access_token) throw new UserError(`${url} answered the OIDC token exchange without a token`, 'Check that the URL is a Stackyard API.');
    return { accessToken: answer.access_token, expiresAt: started + (answer.expires_in ?? 0) * 1000 };
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
      throw new UserError(
        `OIDC token exchange failed: ${error.message}`,
        `Check the trust policies of '${target.org}' (\`stackyard org oidc-policy ls ${target.org}\`) against the token's claims.`,
      );
    }
    throw error;
  }
}
