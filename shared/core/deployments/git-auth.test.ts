import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { StackKeyring } from '../kernel/deps.js';
import { openGitAuth, validateGitAuth } from './git-auth.js';

/** A keyring whose "ciphertext" is the plaintext reversed: enough to see which values were opened. */
const keys: StackKeyring = {
  async encryptForStack(_stack, plaintexts) {
    return plaintexts.map((p) => Uint8Array.from(p).reverse());
  },
  async decryptForStack(_stack, ciphertexts) {
    return ciphertexts.map((c) => Uint8Array.from(c).reverse());
  },
};
const stack = { id: 's1' } as StackRecord;
const sealed = (text: string) => ({ ciphertext: Buffer.from(text, 'utf8').reverse().toString('base64') });
const settingsWith = (gitAuth: unknown) => ({ sourceContext: { git: { repoUrl: 'https://example.com/r.git', gitAuth } } });

describe('gitAuth of deployment settings', () => {
  it('opens the SSH key first, then the access token, then basic auth, as Pulumi chooses', async () => {
    const all = { sshAuth: { sshPrivateKey: sealed('KEY'), password: sealed('phrase') }, accessToken: sealed('tok'), basicAuth: { userName: sealed('u'), password: sealed('p') } };

    const ssh = await openGitAuth(keys, stack, settingsWith(all));
    const token = await openGitAuth(keys, stack, settingsWith({ accessToken: all.accessToken, basicAuth: all.basicAuth }));
    const basic = await openGitAuth(keys, stack, settingsWith({ basicAuth: all.basicAuth }));

    expect(ssh).toEqual({ kind: 'ssh', privateKey: 'KEY', passphrase: 'phrase' });
    expect(token).toEqual({ kind: 'basic', userName: 'git', password: 'tok' });
    expect(basic).toEqual({ kind: 'basic', userName: 'u', password: 'p' });
    expect(await openGitAuth(keys, stack, settingsWith(undefined))).toBeUndefined();
  });

  it('refuses a mode without the values it takes, and unknown fields', () => {
    expect(() => validateGitAuth({ basicAuth: { userName: { secret: 'u' } } })).toThrow(InvalidInputError);
    expect(() => validateGitAuth({ sshAuth: { password: { secret: 'p' } } })).toThrow(/sshPrivateKey/);
    expect(() => validateGitAuth({ token: 'x' })).toThrow(/Unknown sourceContext.git.gitAuth field 'token'/);
    expect(() => validateGitAuth({ accessToken: { secret: 't' } })).not.toThrow();
  });
});
