/**
 * `config set-all`, `config cp` and `config refresh` through the bundled CLI on `login --local`, as Pulumi's
 * pkg/cmd/pulumi/config/config.go behaves: values, secrets under each stack's own key, and the last update's
 * configuration restored (needs `npm run build`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const stackFile = (project: string, stack: string) => parse(readFileSync(join(project, `Pulumi.${stack}.yaml`), 'utf8')) as { config?: Record<string, unknown> };

describe('config set-all, cp and refresh', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(async () => {
    // An empty program: `up` records the configuration it ran with, which `config refresh` restores.
    project = sandbox.project('cfg', 'name: cfg\nruntime: nodejs\n', { 'index.js': 'exports.done = true;\n' });
    await cli('login', '--local');
    for (const stack of ['prod', 'staging', 'dev']) await cli('stack', 'init', stack);
  });
  afterAll(removeSandboxes);

  it('sets plaintexts, secrets and path values in one write', async () => {
    // Act
    const flat = await cli('config', 'set-all', '--plaintext', 'region=eu-west-1', '--plaintext', '"a=b"=c', '--secret', 'password=hunter2', '--plaintext', 'aws:profile=ci');
    const nested = await cli('config', 'set-all', '--path', '--plaintext', 'db.port=5432', '--plaintext', 'db.tls=true', '--plaintext', 'count=7', '--secret', 'db.password=pw');
    const single = await cli('config', 'set', '--path', 'limit', '10');
    const shown = await cli('config', '--json', '--show-secrets');

    // Assert: inside an object `true` and numbers are typed; a top-level value stays a string, as Pulumi's Map.Set
    expect([flat.status, nested.status, single.status]).toEqual([0, 0, 0]);
    const config = stackFile(project, 'dev').config!;
    expect(config).toMatchObject({ 'cfg:region': 'eu-west-1', 'cfg:a=b': 'c', 'aws:profile': 'ci', 'cfg:count': '7', 'cfg:limit': '10', 'cfg:db': { port: 5432, tls: true } });
    expect(config['cfg:password']).toEqual({ secure: expect.any(String) });
    expect((config['cfg:db'] as Record<string, unknown>).password).toEqual({ secure: expect.any(String) });
    expect(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8')).not.toMatch(/hunter2|: pw$/m);
    expect(JSON.parse(shown.stdout)).toMatchObject({ 'cfg:password': { value: 'hunter2', secret: true }, 'cfg:db': { objectValue: { port: 5432, tls: true, password: 'pw' } } });
  });

  it('takes back what `config --json --show-secrets` printed, on another stack', async () => {
    // Arrange
    const printed = (await cli('config', '--json', '--show-secrets')).stdout;

    // Act
    const set = await cli('config', 'set-all', '-s', 'staging', '--json', printed);
    const mixed = await cli('config', 'set-all', '-s', 'staging', '--json', printed, '--plaintext', 'x=y');
    const nil = await cli('config', 'set-all', '-s', 'staging', '--json', '{"cfg:password":{"secret":true}}');

    // Assert
    expect(set.status, set.stderr).toBe(0);
    // An object holding a secret becomes one secret of its JSON text (the printed shape says no more than that).
    const { 'cfg:db': db, ...rest } = JSON.parse(printed) as Record<string, { value: string; objectValue?: unknown }>;
    expect(JSON.parse((await cli('config', '-s', 'staging', '--json', '--show-secrets')).stdout)).toEqual({ ...rest, 'cfg:db': { value: db!.value, secret: true } });
    expect(stackFile(project, 'staging').config!['cfg:db']).toEqual({ secure: expect.any(String) });
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain('error: the --json option cannot be used with the --plaintext, --secret or --path options');
    expect(nil.status).toBe(1);
    expect(nil.stderr).toContain('error: value for --json object key "cfg:password" is nil');
  });

  it('refuses a pair without `=`, writing nothing', async () => {
    const before = readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');

    const result = await cli('config', 'set-all', '--plaintext', 'fine=1', '--plaintext', 'broken');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('error: config value must be in the form [key]=[value]');
    expect(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8')).toBe(before);
  });

  it('copies the whole configuration to another stack, secrets encrypted again with its key', async () => {
    // Act
    const copied = await cli('config', 'cp', '--dest', 'prod');
    const password = await cli('config', 'get', 'password', '-s', 'prod');
    const same = await cli('config', 'copy', '-d', 'dev');

    // Assert
    expect(copied.status, copied.stderr).toBe(0);
    expect(password.stdout).toBe('hunter2\n');
    const [dev, prod] = [stackFile(project, 'dev').config!, stackFile(project, 'prod').config!];
    expect(Object.keys(prod).sort()).toEqual(Object.keys(dev).sort());
    expect(prod['cfg:password']).not.toEqual(dev['cfg:password']);
    expect(same.status).toBe(1);
    expect(same.stderr).toContain('error: current stack and destination stack are the same');
  });

  it('copies one key, or one path inside a key, and names a missing one', async () => {
    // Arrange: a stack with a value of its own, which the copy keeps
    await cli('stack', 'init', 'qa', '--no-select');
    await cli('config', 'set', 'own', 'kept', '-s', 'qa');

    // Act
    const one = await cli('config', 'cp', 'region', '-d', 'qa');
    const path = await cli('config', 'cp', '--path', 'db.password', '-d', 'qa');
    const missing = await cli('config', 'cp', 'nope', '-d', 'qa');

    // Assert
    expect([one.status, path.status]).toEqual([0, 0]);
    expect(stackFile(project, 'qa').config).toEqual({ 'cfg:own': 'kept', 'cfg:region': 'eu-west-1', 'cfg:db': { password: { secure: expect.any(String) } } });
    expect((await cli('config', 'get', '--path', 'db.password', '-s', 'qa')).stdout).toBe('pw\n');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("error: configuration key 'nope' not found for stack 'dev'");
  });

  it('restores the configuration of the last update, keeping the edited file as a backup', async () => {
    // Arrange
    const before = await cli('config', 'refresh');
    const up = await cli('up', '--yes', '--skip-preview');
    const ran = readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');
    await cli('config', 'set', 'region', 'us-east-1');
    await cli('config', 'rm', 'password');
    const edited = readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');
    writeFileSync(join(project, 'Pulumi.dev.yaml.bak'), 'an older backup\n');

    // Act
    const refreshed = await cli('config', 'refresh');
    const forced = await cli('config', 'refresh', '--force');

    // Assert
    expect(before.status).toBe(1);
    expect(before.stderr).toContain('error: getting latest configuration: no previous deployment');
    expect(up.status, up.stderr).toBe(0);
    expect(refreshed.status, refreshed.stderr).toBe(0);
    const file = join(project, 'Pulumi.dev.yaml');
    expect(refreshed.stdout).toBe(`backed up existing configuration file to ${file}.bak.bak\nrefreshed configuration for stack 'dev'\n`);
    expect(readFileSync(`${file}.bak.bak`, 'utf8')).toBe(edited);
    expect(stackFile(project, 'dev')).toEqual(parse(ran));
    expect((await cli('config', 'get', 'password')).stdout).toBe('hunter2\n');
    expect(forced.stdout).toBe('');
    expect(existsSync(`${file}.bak.bak.bak`)).toBe(false);
  });
});
