/** Environments (Pulumi ESC): definitions kept as revisions, revision tags, checking and opening, per-environment keys. */
export * from './types.js';
