import { KMSClient, EncryptCommand } from '@aws-sdk/client-kms';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKmsServer, type KmsStandIn } from '../../test/support/kms-server.js';
import { CiphertextError, IncorrectPassphraseError, newPassphraseState, passphraseCrypter, SymmetricCrypter } from './pulumi-crypter.js';
import { cloudDecrypter, decrypterForProvider, decrypterForStackFile, parseAwsKmsUrl, passphraseDecrypter } from './source-secrets.js';

/**
 * Values published by pulumi/pulumi itself, made by its Go implementation:
 * - `pkg/secrets/passphrase/manager_test.go`: the state below opens with passphrase "password" and not with
 *   "password123";
 * - `tests/roundtrip/roundtrip_test.go` (TestConfigRoundtripComments): a stack file with this encryption salt and the
 *   secret `foo:d`, written under the passphrase "TestConfigRoundtripComments".
 */
const MANAGER_TEST_STATE = 'v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==';
const MANAGER_TEST_BROKEN_STATE = 'fozI5u6B030=:v1:F+6ZduL:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==';
const ROUNDTRIP_SALT = 'v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==';
const ROUNDTRIP_SECRET = 'v1:T1ftqhY0hqr+EJK6:+jvd5PMecFx80tcavzuZY4tLatgIfoe/xR72GA==';

describe('passphrase secrets, against values made by Pulumi', () => {
  it('opens the manager test state with its passphrase', async () => {
    const crypter = await passphraseCrypter('password', MANAGER_TEST_STATE);
    expect(crypter.decrypt(MANAGER_TEST_STATE.slice('v1:fozI5u6B030=:'.length))).toBe('pulumi');
  });

  it('refuses the wrong passphrase and a broken state, as Pulumi does', async () => {
    await expect(passphraseCrypter('password123', MANAGER_TEST_STATE)).rejects.toBeInstanceOf(IncorrectPassphraseError);
    await expect(passphraseCrypter('password', MANAGER_TEST_BROKEN_STATE)).rejects.toBeInstanceOf(CiphertextError);
  });

  it('decrypts a secure config value Pulumi wrote in a stack file', async () => {
    const decrypter = await decrypterForStackFile(
      { encryptionsalt: ROUNDTRIP_SALT },
      { PULUMI_CONFIG_PASSPHRASE: 'TestConfigRoundtripComments' },
    );
    expect(await decrypter!.decrypt([ROUNDTRIP_SECRET])).toEqual(['secret-value']);
  });

  it('reads the passphrase from PULUMI_CONFIG_PASSPHRASE_FILE (trimmed) and says what is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-pass-'));
    try {
      writeFileSync(join(dir, 'phrase'), 'TestConfigRoundtripComments\n');
      const decrypter = await passphraseDecrypter(ROUNDTRIP_SALT, { PULUMI_CONFIG_PASSPHRASE_FILE: join(dir, 'phrase') });
      expect(await decrypter.decrypt([ROUNDTRIP_SECRET])).toEqual(['secret-value']);
      await expect(passphraseDecrypter(ROUNDTRIP_SALT, {})).rejects.toThrow(
        'passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables',
      );
      await expect(passphraseDecrypter(ROUNDTRIP_SALT, { PULUMI_CONFIG_PASSPHRASE: 'nope' })).rejects.toThrow('incorrect passphrase');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a checkpoint\'s passphrase provider state decrypts its secrets', async () => {
    const decrypter = await decrypterForProvider(
      { type: 'passphrase', state: { salt: ROUNDTRIP_SALT } },
      { env: { PULUMI_CONFIG_PASSPHRASE: 'TestConfigRoundtripComments' } },
    );
    expect(await decrypter.decrypt([ROUNDTRIP_SECRET])).toEqual(['secret-value']);
  });

  it('our encoder writes what the format requires: a fresh nonce, a tag, a state Pulumi can check', async () => {
    const { state, crypter } = await newPassphraseState('hunter2');
    const [version, salt] = state.split(':');
    expect(version).toBe('v1');
    expect(Buffer.from(salt!, 'base64')).toHaveLength(8);
    const reopened = await passphraseCrypter('hunter2', state);
    const a = crypter.encrypt('s3cr3t');
    const b = crypter.encrypt('s3cr3t');
    expect(a).not.toBe(b);
    expect(reopened.decrypt(a)).toBe('s3cr3t');
    const [, nonce, sealed] = a.split(':');
    expect(Buffer.from(nonce!, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed!, 'base64')).toHaveLength('s3cr3t'.length + 16);
  });

  it('rejects altered and foreign ciphertexts', () => {
    const crypter = new SymmetricCrypter(randomBytes(32));
    const other = new SymmetricCrypter(randomBytes(32));
    const value = crypter.encrypt('x');
    expect(() => other.decrypt(value)).toThrow(CiphertextError);
    const flipped = `${value.slice(0, -3)}${value.at(-3) === 'A' ? 'B' : 'A'}${value.slice(-2)}`;
    expect(() => crypter.decrypt(flipped)).toThrow(CiphertextError);
    expect(() => crypter.decrypt('v2:AAAA:AAAA')).toThrow('unknown value version');
    expect(() => crypter.decrypt('v1:!!:AAAA')).toThrow('illegal base64');
  });
});

describe('awskms:// secrets, through the KMS stand-in', () => {
  let kms: KmsStandIn;
  const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    kms = await startKmsServer();
    for (const [name, value] of Object.entries(env)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await kms?.stop();
  });

  it('parses the key and the region and endpoint parameters', () => {
    expect(parseAwsKmsUrl('awskms://alias/team?region=eu-west-1')).toEqual({ keyId: 'alias/team', region: 'eu-west-1' });
    expect(parseAwsKmsUrl('awskms:///arn:aws:kms:us-east-1:1:key/abc?endpoint=http://127.0.0.1:1')).toEqual({
      keyId: 'arn:aws:kms:us-east-1:1:key/abc',
      endpoint: 'http://127.0.0.1:1',
    });
  });

  it('unwraps the stack\'s data key with KMS and decrypts its values (state and stack file forms)', async () => {
    const dataKey = randomBytes(32);
    const client = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1' });
    const wrapped = await client.send(new EncryptCommand({ KeyId: kms.alias, Plaintext: dataKey }));
    client.destroy();
    const url = `awskms://${kms.alias}?region=us-east-1&endpoint=${encodeURIComponent(kms.endpoint)}`;
    const ciphertext = new SymmetricCrypter(dataKey).encrypt('from-kms');
    const encryptedkey = Buffer.from(wrapped.CiphertextBlob!).toString('base64');

    const fromState = await decrypterForProvider({ type: 'cloud', state: { url, encryptedkey } }, { env: process.env });
    const fromFile = await decrypterForStackFile({ secretsprovider: url, encryptedkey }, process.env);

    expect(await fromState.decrypt([ciphertext])).toEqual(['from-kms']);
    expect(await fromFile!.decrypt([ciphertext])).toEqual(['from-kms']);
    expect(fromState.description).toBe(url);
  });

  it('a data key KMS will not unwrap is a clear error', async () => {
    const url = `awskms://${kms.alias}?endpoint=${encodeURIComponent(kms.endpoint)}`;
    await expect(cloudDecrypter(url, randomBytes(60))).rejects.toThrow(/could not unwrap the data key .*InvalidCiphertextException/);
  });
});
