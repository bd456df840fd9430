/** Journaling: wire types, the replayer, and durable batch storage. */
export * from './types.js';
export * from './replayer.js';
export * from './journal-store.js';
export * from './update-checkpoints.js';
export * from './journal-writer.js';
export * from './protocol.js';
