import type { StackRef } from '../names.js';
import type { Principal } from '../kernel/principal.js';

export interface SecretService {
  /** Each plaintext/ciphertext is raw bytes; ciphertexts are bound to the stack's immutable id. */
  encrypt(principal: Principal, ref: StackRef, plaintexts: Uint8Array[]): Promise<Uint8Array[]>;
  /** A ciphertext of another stack, or a tampered one, is `InvalidInputError` (400). */
  decrypt(principal: Principal, ref: StackRef, ciphertexts: Uint8Array[]): Promise<Uint8Array[]>;
  /** `log-decryption`: the CLI reports a decryption it did itself (third-party secrets providers); audited only. */
  reportDecryption(principal: Principal, ref: StackRef, what: string): Promise<void>;
}
