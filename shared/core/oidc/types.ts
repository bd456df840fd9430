
/** Why a fetch of an issuer's discovery document or key set failed; the message never contains the response. */
export class IssuerFetchError extends Error {}

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
