import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { InvalidInputError, UnavailableError } from '../../core/errors.js';
import type { DataKey, KeyService } from '../../ports/index.js';
import type { DataDir } from './files.js';

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Canonical JSON (sorted keys) so the same context always gives the same additional authenticated data. */
export function canonicalContext(context: Record<string, string>): Buffer {
  const sorted = Object.keys(context)
    .sort()
    .map((k) => [k, context[k]]);
  return Buffer.from(JSON.stringify(sorted));
}

/**
 * Envelope encryption under a master key file (`master.key`, mode 0600). Data keys are sealed with AES-256-GCM and
 * the canonical context as AAD. Ciphertext layout: format byte (1) | IV (12) | tag (16) | encrypted key (32).
 */
export class LocalKeyService implements KeyService {
  private master?: Promise<Buffer>;

  constructor(private readonly dir: DataDir) {}

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const master = await this.masterKey();
    const plaintext = randomBytes(32);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', master, iv);
    cipher.setAAD(canonicalContext(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const ciphertext = Buffer.concat([Buffer.from([FORMAT]), iv, cipher.getAuthTag(), sealed]);
    return { plaintext, ciphertext };
  }

  async decryptDataKey(ciphertext: Uint8Array, context: Record<string, string>): Promise<Uint8Array> {
    const master = await this.masterKey();
    const buffer = Buffer.from(ciphertext);
    if (buffer.length !== 1 + IV_BYTES + TAG_BYTES + 32 || buffer[0] !== FORMAT) {
      throw new InvalidInputError('The encrypted data key is malformed.');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', master, buffer.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(canonicalContext(context));
      decipher.setAuthTag(buffer.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(buffer.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new InvalidInputError('The data key cannot be decrypted for this context (wrong stack or tampered).');
    }
  }

  private masterKey(): Promise<Buffer> {
    this.master ??= this.loadOrCreate().catch((error: unknown) => {
      this.master = undefined;
      throw new UnavailableError('The local master key cannot be read or created.', { cause: error });
    });
    return this.master;
  }

  /** Concurrent creators each write a complete temp key and `link` it; the first wins and all read the winner's. */
  private async loadOrCreate(): Promise<Buffer> {
    const path = this.dir.path('master.key');
    const existing = await fs.readFile(path).catch(() => undefined);
    if (existing?.length === 32) return existing;
    const temp = await this.dir.writeTemp(randomBytes(32));
    await this.dir.publishExclusive(temp, path);
    const key = await fs.readFile(path);
    if (key.length !== 32) throw new Error('master.key is not 32 bytes');
    return key;
  }
}
