/** Checkpoints: the deployment document, its integrity and scanning, checkpoint bodies and deltas as stored. */
export * from './checkpoint-body.js';
export * from './checkpoint-delta.js';
export * from './compact-string-set.js';
export * from './deployment-integrity.js';
export * from './deployment-scan.js';
export * from './json-bytes.js';
export * from './json-scan.js';
export * from './stored-deployment.js';
export * from './types.js';
