/**
 * Envelope-encryption key service (KMS in AWS, a master key file locally). The core encrypts secrets with the
 * plaintext data key (AES-256-GCM); only the encrypted data key is ever stored.
 *
 * Guarantees:
 * - `generateDataKey` returns a fresh 256-bit key and its ciphertext bound to `context`.
 * - `decryptDataKey` with a different context, or a tampered ciphertext, throws `InvalidInputError`.
 * - An unreachable or misconfigured key service throws `UnavailableError`.
 */
export interface KeyService {
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  decryptDataKey(ciphertext: Uint8Array, context: Record<string, string>): Promise<Uint8Array>;
}

export interface DataKey {
  plaintext: Uint8Array;
  ciphertext: Uint8Array;
}
