/** Audit: the audit log, written as an intent before the action it records, and the record of refusals. */
export * from './audit.js';
export * from './denials.js';
