/**
 * `stackyard stack change-secrets-provider default` on `login --local` (needs `npm run build`): a stack file written by
 * Pulumi under a passphrase (pulumi/pulumi's published roundtrip salt and ciphertext) is moved to the stack's key
 * without re-entering anything; other providers are refused as a documented difference.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { passphraseCrypter } from '../../cli/secrets/pulumi-crypter.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const PULUMI_FILE =
  'encryptionsalt: v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==\n' +
  '# a comment that stays\n' +
  'config:\n' +
  '  foo:a: some-value\n' +
  '  foo:d:\n' +
  '    secure: v1:T1ftqhY0hqr+EJK6:+jvd5PMecFx80tcavzuZY4tLatgIfoe/xR72GA==\n';

afterAll(() => removeSandboxes());

describe('stack change-secrets-provider', () => {
  it('moves a passphrase stack file to the stack key; config get then works with no passphrase', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('foo', 'name: foo\nruntime: nodejs\n');
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => sandbox.run(project, args, { env });
    await cli(['login', '--local']);
    await cli(['stack', 'init', 'test']);
    const file = join(project, 'Pulumi.test.yaml');
    writeFileSync(file, PULUMI_FILE);
    const before = await cli(['config', 'get', 'd']);

    const noPassphrase = await cli(['stack', 'change-secrets-provider', 'default']);
    const changed = await cli(['stack', 'change-secrets-provider', 'default'], { PULUMI_CONFIG_PASSPHRASE: 'TestConfigRoundtripComments' });
    const after = await cli(['config', 'get', 'd']);
    const again = await cli(['stack', 'change-secrets-provider', 'default']);

    expect(before.status).toBe(1);
    expect(before.stderr).toContain("cannot decrypt configuration value 'foo:d' in Pulumi.test.yaml: it was encrypted by a Pulumi passphrase");
    expect(before.stderr).toContain('stackyard stack change-secrets-provider default');
    expect(noPassphrase.status).toBe(1);
    expect(noPassphrase.stderr).toContain('passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE');
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stderr).toContain(`Re-encrypted 1 configuration secret(s) in ${file}; the original is kept as ${file}.bak.`);
    expect(after.stdout).toBe('secret-value\n');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('encryptionsalt');
    expect(text).not.toContain('T1ftqhY0hqr');
    expect(text).toContain('# a comment that stays');
    expect(text).toContain('foo:a: some-value');
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(PULUMI_FILE);
    expect(again.stdout).toBe("Stack 'test' already uses its own key for all of its secrets; nothing to change.\n");
  });

  it('refuses providers other than the stack key, saying why', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('foo', 'name: foo\nruntime: nodejs\n');
    await sandbox.run(project, ['login', '--local']);
    await sandbox.run(project, ['stack', 'init', 'test']);

    const refused = await sandbox.run(project, ['stack', 'change-secrets-provider', 'passphrase']);

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("stackyard keeps every stack's secrets under that stack's own key; it cannot change to 'passphrase'");
  });
});

describe('stack import of a `pulumi stack export` made under a passphrase', () => {
  it('decrypts with PULUMI_CONFIG_PASSPHRASE and stores the secrets under the stack key', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('foo', 'name: foo\nruntime: nodejs\n');
    await sandbox.run(project, ['login', '--local']);
    await sandbox.run(project, ['stack', 'init', 'test']);
    const salt = 'v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==';
    const crypter = await passphraseCrypter('TestConfigRoundtripComments', salt);
    const exported = {
      version: 3,
      deployment: {
        manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: 'v3.200.0' },
        secrets_providers: { type: 'passphrase', state: { salt } },
        resources: [
          {
            urn: 'urn:pulumi:test::foo::pulumi:pulumi:Stack::foo-test',
            custom: false,
            type: 'pulumi:pulumi:Stack',
            outputs: { db: { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', ciphertext: crypter.encrypt('"db-pass-9"') } },
          },
        ],
      },
    };
    const file = join(sandbox.root, 'pulumi-export.json');
    writeFileSync(file, JSON.stringify(exported));

    const withoutPassphrase = await sandbox.run(project, ['stack', 'import', '--file', file]);
    const imported = await sandbox.run(project, ['stack', 'import', '--file', file], { env: { PULUMI_CONFIG_PASSPHRASE: 'TestConfigRoundtripComments' } });
    const output = await sandbox.run(project, ['stack', 'output', 'db', '--show-secrets']);
    const stored = JSON.parse((await sandbox.run(project, ['stack', 'export'])).stdout);

    expect(withoutPassphrase.status).toBe(1);
    expect(withoutPassphrase.stderr).toContain('passphrase must be set with PULUMI_CONFIG_PASSPHRASE');
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('Secrets re-encrypted from the passphrase secrets provider');
    expect(output.stdout).toBe('db-pass-9\n');
    expect(stored.deployment.secrets_providers.type).toBe('service');
    expect(JSON.stringify(stored)).not.toContain('db-pass-9');
  });
});
