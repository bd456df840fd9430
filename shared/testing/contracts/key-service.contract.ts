import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { uniqueId, type ContractEnv, type ContractSetup } from './setup.js';

/** KeyService guarantees: fresh 256-bit keys bound to their context; wrong context or tampering is refused. */
export function keyServiceContract(adapterName: string, setup: ContractSetup): void {
  describe(`KeyService contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('generates a fresh 256-bit key that decrypts with the same context', async () => {
      const context = { stackId: uniqueId() };
      const a = await env.storage.keys.generateDataKey(context);
      const b = await env.storage.keys.generateDataKey(context);
      expect(a.plaintext).toHaveLength(32);
      expect(Buffer.from(a.plaintext).equals(Buffer.from(b.plaintext))).toBe(false);
      expect(Buffer.from(a.ciphertext).includes(Buffer.from(a.plaintext))).toBe(false);
      const back = await env.storage.keys.decryptDataKey(a.ciphertext, { ...context });
      expect(Buffer.from(back).equals(Buffer.from(a.plaintext))).toBe(true);
    });

    it('refuses another context with InvalidInputError', async () => {
      const key = await env.storage.keys.generateDataKey({ stackId: uniqueId() });
      await expect(env.storage.keys.decryptDataKey(key.ciphertext, { stackId: uniqueId() })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      await expect(env.storage.keys.decryptDataKey(key.ciphertext, {})).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('refuses tampered or truncated ciphertext with InvalidInputError', async () => {
      const context = { stackId: uniqueId() };
      const key = await env.storage.keys.generateDataKey(context);
      const tampered = Buffer.from(key.ciphertext);
      tampered[tampered.length - 5] ^= 0x01;
      await expect(env.storage.keys.decryptDataKey(tampered, context)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.keys.decryptDataKey(key.ciphertext.slice(0, 10), context)).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });
  });
}
