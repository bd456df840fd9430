/** Identity: users, organizations, members and tokens; authenticating a token to its principal. */
export * from './identity-service.js';
export * from './types.js';
