/** The environments' OIDC issuer: discovery, the published key set, ID tokens, and key rotation. */
export { discoveryDocument, issuerKeySet, issuerKeyStandings, issuerUrl, ISSUER_PATH, rotateIssuerKey, signIdToken } from './issuer.js';
export { ISSUER_KEY_SCOPE } from './key-chain.js';
export { ID_TOKEN_LIFETIME_SECONDS, KEY_SET_CACHE_SECONDS, PUBLISH_AHEAD_SECONDS, RETIRE_AFTER_SECONDS, type KeyStanding } from './key-schedule.js';
export { issuerKeyView, type IssuerKeyView } from './key-view.js';
