import { describe, expect, it } from 'vitest';
import { applyValuePatches, encryptSecrets, escValue, evalEnvironment, makeSecret, toJSON, valueToSecretJSON, type EscRotator } from '../index.js';

describe('writing rotation state back', () => {
  it('writes secrets as fn::secret, and secret objects as fn::fromJSON of a secret JSON string', () => {
    expect(valueToSecretJSON({ value: { foo: { value: { bar: escValue('secret', { secret: true }) } } } })).toEqual({ foo: { bar: { 'fn::secret': 'secret' } } });
    expect(valueToSecretJSON(makeSecret(escValue({ username: 'admin', password: 'secret123' })))).toEqual({
      'fn::fromJSON': { 'fn::secret': '{"password":"secret123","username":"admin"}' },
    });
  });

  it('replaces the rotator state at the patch path, keeping the rest of the definition and its comments', async () => {
    const source = '# example.yaml\nvalues:\n  mySecret:\n    fn::rotate:\n      provider: keep\n      inputs: {}\n      state: null\n  other: kept # why\n';
    const replacement = { value: { credentials: makeSecret(escValue({ username: 'admin', password: 'secret123' })) } };
    const keep: EscRotator = { inputSchema: true, stateSchema: true, open: async (_inputs, state) => ({ value: state ?? {} }), rotate: async (_inputs, state) => ({ value: state ?? {} }) };

    const patched = applyValuePatches(source, [{ docPath: 'values.mySecret["fn::rotate"].state', replacement }]);
    const { environment, diagnostics } = await evalEnvironment('test', patched, { rotators: { keep } });

    expect(diagnostics).toEqual([]);
    expect(patched.startsWith('# example.yaml\n')).toBe(true);
    expect(patched).toContain('other: kept # why');
    expect(toJSON({ value: environment!.properties }, true)).toEqual({ mySecret: { credentials: '[secret]' }, other: 'kept' });
    expect(toJSON({ value: environment!.properties }, false)).toEqual({ mySecret: { credentials: { password: 'secret123', username: 'admin' } }, other: 'kept' });
  });
});

describe('encrypting a definition', () => {
  it('seals plaintext secrets and leaves secrets that are already ciphertext as they are', async () => {
    const sealed = 'ZXNjeAAAAAFhYmNkNTZzIQ==';
    const source = `values:\n  old:\n    fn::secret:\n      ciphertext: ${sealed}\n  new:\n    fn::secret: plain\n`;

    const encrypted = await encryptSecrets(source, async (plaintext) => Buffer.from(`sealed:${Buffer.from(plaintext).toString()}`));

    expect(encrypted).toContain(`ciphertext: ${sealed}`);
    expect(encrypted).not.toContain('plain\n');
    expect(encrypted.match(/ciphertext:/g)).toHaveLength(2);
  });
});
