/** State diffs: what changed between two versions of a stack (`stack diff`, `GET …/diff`), pure and keyed by URN. */
export * from './diff.js';
export * from './secrets.js';
export * from './types.js';
