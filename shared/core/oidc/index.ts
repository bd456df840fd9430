/** OIDC: trust policies and the token exchange of an issuer-signed ID token for a Stackyard token. */
export * from './claim-pattern.js';
export * from './exchange-request.js';
export * from './https-json.js';
export * from './key-source.js';
export * from './oidc-service.js';
export * from './policies.js';
export * from './refusal.js';
export * from './types.js';
export * from './verify.js';
