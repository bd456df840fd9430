/**
 * Stack-scoped immutable objects: checkpoints, and the other durable artefacts of updates (engine event batches,
 * journal entries). S3 in AWS, files in the local data folder.
 *
 * Guarantees:
 * - `put` writes an object exactly once: a second `put` of the same key fails with `ConflictError` and leaves the
 *   first object untouched. When `put` resolves the object is durable.
 * - Objects are stored gzip-compressed and streamed; bodies over `MAX_OBJECT_BYTES` (uncompressed) fail with
 *   `TooLargeError` and write nothing.
 * - Keys are `stackId` (the stack's immutable id) plus a relative `name` of `/`-separated segments made of
 *   `[A-Za-z0-9._-]` (never `.` or `..`); anything else fails with `InvalidInputError`.
 */
export interface CheckpointStore {
  /** Stores `body`, or a body `prepare` already compressed. */
  put(key: ObjectKey, body: Uint8Array | PreparedObject): Promise<void>;
  /**
   * Compresses a body the way `put` stores it, off the event loop, so a caller can do it while it waits for
   * something else (the token check of a checkpoint save) and `put` then only writes. Size limit as for `put`.
   */
  prepare(body: Uint8Array): Promise<PreparedObject>;
  /** Throws `NotFoundError` when there is no such object. */
  get(key: ObjectKey): Promise<Uint8Array>;
  /** Names (relative to the stack) that start with `prefix`, sorted ascending by name. */
  list(stackId: string, prefix: string): Promise<string[]>;
}

/** A body compressed by `CheckpointStore.prepare`. */
export interface PreparedObject {
  readonly gzipped: Uint8Array;
  /** Uncompressed size in bytes. */
  readonly size: number;
}

export interface ObjectKey {
  stackId: string;
  name: string;
}

export const MAX_OBJECT_BYTES = 50 * 1024 * 1024;

/**
 * Output chunk size for inflating stored objects: each chunk is a round trip between the zlib thread and the event
 * loop, and zlib's 16 KiB default makes reading a megabyte of state about 4x slower than a few large chunks.
 */
export const INFLATE_CHUNK_BYTES = 256 * 1024;
