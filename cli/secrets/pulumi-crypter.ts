/**
 * Pulumi's symmetric secrets format, byte for byte (pulumi/pulumi `sdk/go/common/resource/config/crypt.go`): a
 * ciphertext is `v1:<base64 nonce, 12 bytes>:<base64 AES-256-GCM ciphertext with its 16-byte tag appended>`, no
 * additional data. The `passphrase` provider derives the key with PBKDF2-HMAC-SHA256 (1,000,000 iterations, 32 bytes)
 * from the passphrase and an 8-byte salt; its state (`encryptionsalt:` in `Pulumi.<stack>.yaml`, `{"salt": …}` in a
 * checkpoint) is `v1:<base64 salt>:<the word "pulumi" encrypted under that key>`, so a wrong passphrase is detected
 * before anything else is decrypted (`pkg/secrets/passphrase/manager.go`). The cloud providers (`awskms://` …) use the
 * same format under a random 32-byte data key kept wrapped by the KMS.
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const SALT_BYTES = 8;
const PBKDF2_ITERATIONS = 1_000_000;
const CHECK_WORD = 'pulumi';
const derive = promisify(pbkdf2);

/** A value that is not a `v1:` ciphertext of this key: malformed, altered, or made under another key. */
export class CiphertextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CiphertextError';
  }
}

/** The passphrase does not open the state's check value. */
export class IncorrectPassphraseError extends Error {
  constructor() {
    super('incorrect passphrase');
    this.name = 'IncorrectPassphraseError';
  }
}

/** Encrypts and decrypts Pulumi `v1:` ciphertexts under one 32-byte key. */
export class SymmetricCrypter {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) throw new CiphertextError(`AES-256-GCM needs a ${KEY_BYTES}-byte key, got ${key.length} bytes`);
    this.key = Buffer.from(key);
  }

  encrypt(plaintext: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1:${nonce.toString('base64')}:${sealed.toString('base64')}`;
  }

  decrypt(ciphertext: string): string {
    const parts = ciphertext.split(':');
    if (parts.length !== 3) throw new CiphertextError('bad value: expected v1:<nonce>:<ciphertext>');
    if (parts[0] !== 'v1') throw new CiphertextError('unknown value version');
    const nonce = strictBase64(parts[1]!);
    const sealed = strictBase64(parts[2]!);
    if (nonce.length !== NONCE_BYTES) throw new CiphertextError('bad value: nonce size is incorrect');
    if (sealed.length < TAG_BYTES) throw new CiphertextError('bad value: ciphertext too short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new CiphertextError('message authentication failed: the value was encrypted under another key, or altered');
    }
  }
}

/** Go's `base64.StdEncoding`: padded standard alphabet only (Node would silently skip other characters). */
function strictBase64(text: string): Buffer {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) {
    throw new CiphertextError('bad value: illegal base64 data');
  }
  return Buffer.from(text, 'base64');
}

/** The key Pulumi derives from a passphrase and a salt. */
export async function passphraseKey(passphrase: string, salt: Uint8Array): Promise<Buffer> {
  return derive(Buffer.from(passphrase, 'utf8'), salt, PBKDF2_ITERATIONS, KEY_BYTES, 'sha256');
}

/**
 * The crypter of a passphrase state (`v1:<salt>:<check>`); `IncorrectPassphraseError` when the passphrase does not
 * open the check value, `CiphertextError` when the state itself is malformed.
 */
export async function passphraseCrypter(passphrase: string, state: string): Promise<SymmetricCrypter> {
  const first = state.indexOf(':');
  const second = state.indexOf(':', first + 1);
  if (first < 0 || second < 0) throw new CiphertextError('malformed passphrase state: expected v1:<salt>:<check value>');
  if (state.slice(0, first) !== 'v1') throw new CiphertextError('unknown passphrase state version');
  const salt = strictBase64(state.slice(first + 1, second));
  const crypter = new SymmetricCrypter(await passphraseKey(passphrase, salt));
  let check: string;
  try {
    check = crypter.decrypt(state.slice(second + 1));
  } catch {
    throw new IncorrectPassphraseError();
  }
  if (check !== CHECK_WORD) throw new IncorrectPassphraseError();
  return crypter;
}

/** A new passphrase state (fresh 8-byte salt), as `pulumi stack init --secrets-provider passphrase` writes it. */
export async function newPassphraseState(passphrase: string): Promise<{ state: string; crypter: SymmetricCrypter }> {
  const salt = randomBytes(SALT_BYTES);
  const crypter = new SymmetricCrypter(await passphraseKey(passphrase, salt));
  return { state: `v1:${salt.toString('base64')}:${crypter.encrypt(CHECK_WORD)}`, crypter };
}
