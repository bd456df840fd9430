/** Stacks: create, list, rename, import/export, history, rollback and carried-over history (`StackService`, `StackRestoreService`). */
export * from './deployment-rules.js';
export * from './stack-restore.js';
export * from './stack-service.js';
export * from './types.js';
