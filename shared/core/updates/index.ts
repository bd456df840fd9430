/** Updates: the update lifecycle (create, start, checkpoints, journal, complete, cancel) and its history records. */
export * from './lease-decisions.js';
export * from './types.js';
export * from './update-records.js';
export * from './update-service.js';
