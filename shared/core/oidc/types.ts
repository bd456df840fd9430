/** Fetches a JSON document over HTTPS; the one I/O the OIDC verifier does (tests inject their own). */
export type JsonFetcher = (url: string) => Promise<unknown>;

/** Why a fetch of an issuer's discovery document or key set failed; the message never contains the response. */
export class IssuerFetchError extends Error {}

/** How ID tokens are checked; every field has a default (docs/security.md, "OIDC for CI"). */
export interface OidcOptions {
  /** How discovery documents and key sets are fetched (default: HTTPS through the SSRF guard, `httpsJsonFetcher`). */
  fetchJson?: JsonFetcher;
  /** Allowed clock difference for `exp`, `nbf` and `iat` (default 60 s). */
  clockSkewSeconds?: number;
  /** How long a fetched key set is used before it is fetched again (default 10 minutes). */
  keysCacheMs?: number;
  /** At most one refetch per issuer in this time for an unknown key id (default 10 s), so random ids cannot hammer it. */
  unknownKidRefetchMs?: number;
}

/** `urn:ietf:params:oauth:token-type:id_token`, RFC 8693 §3: the only subject token type accepted. */
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The requested token types the Pulumi CLI sends (pkg/backend/httpstate/client), by our token kind. */
export const PULUMI_TOKEN_TYPES = {
  organization: 'urn:pulumi:token-type:access_token:organization',
  team: 'urn:pulumi:token-type:access_token:team',
  personal: 'urn:pulumi:token-type:access_token:personal',
} as const;
export const PULUMI_ORG_AUDIENCE_PREFIX = 'urn:pulumi:org:';
