/** Secrets: each stack's data key and the envelope sealed under it, and the encrypt/decrypt use cases. */
export * from './secret-service.js';
export * from './secrets-envelope.js';
export * from './types.js';
