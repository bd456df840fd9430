import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decryptSecrets, encryptSecrets } from '../../shared/esc/index.js';

/** pulumi/esc's crypt cases (test/fixtures/esc-crypt, see its NOTICE): encryption and decryption of definitions, byte for byte. */
const FIXTURES = join(import.meta.dirname, '../fixtures/esc-crypt');
const CASES = readdirSync(FIXTURES).flatMap((f) => (f.endsWith('.plaintext.yaml') ? [f.slice(0, -'.plaintext.yaml'.length)] : []));

const rot128 = async (bytes: Uint8Array): Promise<Uint8Array> => bytes.map((b) => (b + 128) & 0xff);
const broken = async (): Promise<Uint8Array> => {
  throw new Error('broken');
};

describe('pulumi/esc crypt cases', () => {
  it.each(CASES)('%s encrypts to its ciphertext file and decrypts back', async (name) => {
    const plaintext = readFileSync(join(FIXTURES, `${name}.plaintext.yaml`), 'utf8');
    const ciphertext = readFileSync(join(FIXTURES, `${name}.ciphertext.yaml`), 'utf8');

    const encrypted = await encryptSecrets(plaintext, rot128);
    const decrypted = await decryptSecrets(encrypted, rot128);

    expect(encrypted).toBe(ciphertext);
    expect(decrypted).toBe(plaintext);
  });

  it('fails on ciphertext that is not base64, and when the cipher fails', async () => {
    await expect(decryptSecrets('values:\n  password:\n    fn::secret:\n      ciphertext: "********"\n', rot128)).rejects.toThrow(/invalid ciphertext/);
    await expect(encryptSecrets('values:\n  password:\n    fn::secret: hunter2\n', broken)).rejects.toThrow('broken');
    await expect(decryptSecrets('values:\n  password:\n    fn::secret:\n      ciphertext: ZXNjeAAAAAHo9e705fKyKo30VQ==\n', broken)).rejects.toThrow('broken');
  });

  it('leaves malformed secrets and secrets outside values alone', async () => {
    const malformed = 'values:\n  password:\n    fn::secret: [array]\n';
    const outside = 'other:\n  password:\n    fn::secret:\n      ciphertext: not-an-envelope\n';

    expect(await encryptSecrets(malformed, broken)).toBe(malformed);
    expect(await decryptSecrets(outside, broken)).toBe(outside);
  });

  it('decrypts the sealed secrets of a definition that also holds one still in plaintext (env set --secret), keeping that one', async () => {
    const sealed = await encryptSecrets('values:\n  old:\n    fn::secret: first\n', rot128);
    const mixed = `${sealed}  new:\n    fn::secret: second\n`;

    const decrypted = await decryptSecrets(mixed, rot128);

    expect(decrypted).toBe('values:\n  old:\n    fn::secret: first\n  new:\n    fn::secret: second\n');
  });
});
