/** What every service is built from: storage, the clock, the stacks' data keys and the options. */
import type { Storage } from '../../ports/index.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceOptions } from './options.js';

/**
 * The per-stack data keys and the secrets envelope on them (`secrets/StackKeys`); declared here so that the deps
 * every service is built from need nothing of the secrets context.
 */
export interface StackKeyring {
  /** Each plaintext sealed under the stack's data key, bound to the stack's immutable id. */
  encryptForStack(stack: StackRecord, plaintexts: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /** A ciphertext of another stack, or a tampered one, is `InvalidInputError`. */
  decryptForStack(stack: StackRecord, ciphertexts: readonly Uint8Array[]): Promise<Uint8Array[]>;
}

/** What every service is built from; one instance per `createServices` call, shared by all the services. */
export interface ServiceDeps {
  storage: Storage;
  /** Domain clock, epoch milliseconds. */
  now: () => number;
  /** The per-stack data keys and the secrets envelope on them. */
  keys: StackKeyring;
  options: ServiceOptions;
}
