import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { InvalidInputError, UnavailableError } from '../../core/errors.js';
import type { DataKey, KeyService } from '../../ports/key-service.js';
import { errorName, isTransient } from './errors.js';

/** Ciphertexts KMS rejects because of what the caller sent: wrong context, tampering, another key. */
const REJECTED = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);
/** The key itself cannot be used: a configuration problem an operator must fix. */
const KEY_UNUSABLE = new Set(['NotFoundException', 'DisabledException', 'KMSInvalidStateException', 'AccessDeniedException']);

const CACHE_TTL_MS = 5 * 60 * 1000;
const CACHE_MAX_ENTRIES = 1000;

function checkContext(context: Record<string, string>): Record<string, string> {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) {
    throw new InvalidInputError('The encryption context must be a map of strings.');
  }
  for (const value of Object.values(context)) {
    if (typeof value !== 'string') throw new InvalidInputError('Encryption context values must be strings.');
  }
  return context;
}

/**
 * Per-stack data keys from KMS (`GenerateDataKey`, AES-256, bound to the encryption context). Decrypted keys are
 * cached in memory for five minutes so a busy stack does not call KMS on every secret.
 */
export class KmsKeyService implements KeyService {
  private readonly cache = new Map<string, { key: Uint8Array; expiresAt: number }>();

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    private readonly now: () => number = Date.now,
  ) {}

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const response = await this.call(() =>
      this.kms.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: checkContext(context) })),
    );
    if (!response.Plaintext || !response.CiphertextBlob) throw new UnavailableError('KMS returned no data key; try again.');
    return { plaintext: new Uint8Array(response.Plaintext), ciphertext: new Uint8Array(response.CiphertextBlob) };
  }

  async decryptDataKey(ciphertext: Uint8Array, context: Record<string, string>): Promise<Uint8Array> {
    if (!(ciphertext instanceof Uint8Array) || ciphertext.byteLength === 0 || ciphertext.byteLength > 6144) {
      throw new InvalidInputError('The encrypted data key is empty or malformed.');
    }
    const entries = Object.entries(checkContext(context)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const cacheKey = `${Buffer.from(ciphertext).toString('base64')}|${JSON.stringify(entries)}`;
    const now = this.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now) return new Uint8Array(cached.key);
    const response = await this.call(() =>
      this.kms.send(new DecryptCommand({ CiphertextBlob: ciphertext, EncryptionContext: context, KeyId: this.keyId })),
    );
    if (!response.Plaintext) throw new UnavailableError('KMS returned no plaintext; try again.');
    const key = new Uint8Array(response.Plaintext);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, { key: new Uint8Array(key), expiresAt: now + CACHE_TTL_MS });
    return key;
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const name = errorName(error);
      if (name && REJECTED.has(name)) {
        throw new InvalidInputError(
          'The data key cannot be decrypted with this context: it belongs to another stack or was altered.',
          { cause: error },
        );
      }
      if (name && KEY_UNUSABLE.has(name)) {
        throw new UnavailableError(
          `The KMS key '${this.keyId}' cannot be used (${name}); check STACKYARD_KMS_KEY_ID and the key's state.`,
          { cause: error },
        );
      }
      if (isTransient(error)) {
        throw new UnavailableError(`KMS is unreachable or failing (${name}); try again shortly.`, { cause: error });
      }
      throw error;
    }
  }
}
