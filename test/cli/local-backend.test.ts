/**
 * The bundled CLI on `login --local`: the stack, config, tag, export/import, history, rename, state, cancel and rm
 * commands in the order a user meets them, then each error path. Everything is a real child process on a temp
 * STACKYARD_HOME (needs `npm run build`).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const urn = (stack: string, type: string, name: string) => `urn:pulumi:${stack}::demo::${type}::${name}`;
const ROOT = urn('dev', 'pulumi:pulumi:Stack', 'demo-dev');
const A = urn('dev', 'test:index:Thing', 'a');
const B = urn('dev', 'test:index:Thing', 'b');

/** A state as `stack export --show-secrets` writes it: a protected resource, a dependent, a plaintext secret output. */
const DEPLOYMENT = {
  version: 3,
  deployment: {
    manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
    resources: [
      { urn: ROOT, custom: false, type: 'pulumi:pulumi:Stack', outputs: { token: { [SIG]: SECRET, plaintext: '"s3cret-value"' }, plain: 'visible' } },
      { urn: A, custom: true, id: 'a-1', type: 'test:index:Thing', protect: true, parent: ROOT, outputs: {} },
      { urn: B, custom: true, id: 'b-1', type: 'test:index:Thing', parent: ROOT, dependencies: [A], outputs: {} },
    ],
  },
};

interface Exported {
  version: number;
  deployment: { resources?: { urn: string; protect?: boolean; outputs?: Record<string, unknown> }[]; secrets_providers?: { type: string; state: Record<string, string> } };
}

describe('stackyard on the local backend', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(() => {
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\ndescription: a demo project\n');
  });
  afterAll(removeSandboxes);

  it('logs in to $STACKYARD_HOME/local and keeps its credentials private, apart from Pulumi', async () => {
    const result = await cli('login', '--local');

    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`Logged in to file://${join(sandbox.home, 'local')} as local`);
    const credentials = join(sandbox.home, 'credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(credentials, 'utf8')).current).toBe(`file://${join(sandbox.home, 'local')}`);
    expect(existsSync(join(sandbox.home, '.pulumi'))).toBe(false);
  });

  it('creates and selects a stack, and says who we are', async () => {
    const init = await cli('stack', 'init', 'dev');
    const whoami = await cli('whoami', '--json');

    expect(init.status).toBe(0);
    expect(init.stdout).toBe("Created stack 'dev'\n");
    expect(JSON.parse(whoami.stdout)).toEqual({ user: 'local', organizations: ['organization'], url: `file://${join(sandbox.home, 'local')}` });
  });

  it("reads the stack's drift status, and refuses schedules, which need a service's scheduler", async () => {
    const status = await cli('stack', 'drift', 'status', '--output', 'json');
    const schedules = await cli('stack', 'schedule', 'ls');

    expect(JSON.parse(status.stdout)).toEqual({ driftDetected: false, latestDriftRun: '', runInProgress: false });
    expect(schedules.status).toBe(1);
    expect(schedules.stderr).toContain('the local backend does not support schedules');
  });

  it('stores a secret encrypted where Pulumi puts it, and reads it back', async () => {
    const set = await cli('config', 'set', '--secret', 'password', 'hunter2');
    const get = await cli('config', 'get', 'password');

    expect(set.status).toBe(0);
    const file = readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');
    expect(file).toMatch(/^config:\n {2}demo:password:\n {4}secure: \S+\n$/);
    expect(file).not.toContain('hunter2');
    expect(get.stdout).toBe('hunter2\n');
  });

  it('sets typed values inside objects with --path and lists config as JSON like pulumi', async () => {
    await cli('config', 'set', '--path', 'db.port', '5432');
    await cli('config', 'set', 'region', 'eu-west-1');

    const listed = await cli('config', '--json');
    const revealed = await cli('config', '--json', '--show-secrets');

    expect(JSON.parse(listed.stdout)).toEqual({
      'demo:db': { value: '{"port":5432}', objectValue: { port: 5432 }, secret: false },
      'demo:password': { secret: true },
      'demo:region': { value: 'eu-west-1', secret: false },
    });
    expect(JSON.parse(revealed.stdout)['demo:password']).toEqual({ value: 'hunter2', secret: true });
  });

  it('lists the stack as the current one, and keeps tags', async () => {
    const tagged = await cli('stack', 'tag', 'set', 'env', 'prod');
    const tags = await cli('stack', 'tag', 'ls', '--json');
    const listed = await cli('stack', 'ls', '--json');

    expect(tagged.status).toBe(0);
    expect(JSON.parse(tags.stdout)).toEqual({ env: 'prod', 'pulumi:description': 'a demo project', 'pulumi:project': 'demo', 'pulumi:runtime': 'nodejs' });
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'dev', current: true }]);
  });

  it('exports a never-updated stack as a valid minimal deployment', async () => {
    const result = await cli('stack', 'export');

    expect(result.status).toBe(0);
    const exported = JSON.parse(result.stdout) as Exported & { deployment: { manifest: unknown } };
    expect(exported.version).toBe(3);
    expect(exported.deployment.manifest).toBeTypeOf('object');
    expect(exported.deployment.resources).toBeUndefined();
  });

  it('imports plaintext secrets encrypted with the stack key, and shows them only when asked', async () => {
    const file = join(sandbox.root, 'import.json');
    writeFileSync(file, JSON.stringify(DEPLOYMENT));

    const imported = await cli('stack', 'import', '--file', file);
    const stored = await cli('stack', 'export');
    const revealed = await cli('stack', 'export', '--show-secrets');
    const outputs = await cli('stack', 'output', '--json');
    const secretOutput = await cli('stack', 'output', 'token', '--show-secrets');

    expect(imported.stdout).toBe('Import complete.\n');
    expect(stored.stdout).not.toContain('s3cret-value');
    const token = (JSON.parse(stored.stdout) as Exported).deployment.resources![0]!.outputs!.token as Record<string, string>;
    expect(token[SIG]).toBe(SECRET);
    expect(token.ciphertext).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect((JSON.parse(stored.stdout) as Exported).deployment.secrets_providers?.state).toMatchObject({ owner: 'organization', project: 'demo', stack: 'dev' });
    expect((JSON.parse(revealed.stdout) as Exported).deployment.resources![0]!.outputs!.token).toEqual({ [SIG]: SECRET, plaintext: '"s3cret-value"' });
    expect(JSON.parse(outputs.stdout)).toEqual({ plain: 'visible', token: '[secret]' });
    expect(secretOutput.stdout).toBe('s3cret-value\n');
  });

  it('refuses to delete a protected resource or one others depend on, following pulumi', async () => {
    const protectedOne = await cli('state', 'delete', A, '--yes');
    const withDependents = await cli('state', 'delete', A, '--yes', '--force');

    expect(protectedOne.status).toBe(1);
    expect(protectedOne.stderr).toContain(`${A} can't be safely deleted because it is protected`);
    expect(withDependents.status).toBe(1);
    expect(withDependents.stderr).toContain(`${A} can't be safely deleted because the following resources depend on it`);
    expect(withDependents.stderr).toContain('--target-dependents');
  });

  it('unprotects and deletes with dependents, each edit a new version', async () => {
    const unprotected = await cli('state', 'unprotect', A);
    const deleted = await cli('state', 'delete', A, '--yes', '--target-dependents');
    const after = JSON.parse((await cli('stack', 'export')).stdout) as Exported;
    const history = JSON.parse((await cli('stack', 'history', '--json')).stdout) as { version: number; kind: string; result: string }[];

    expect(unprotected.stdout).toBe('Resource unprotected\n');
    expect(deleted.stdout).toBe('Resource deleted\n');
    expect(after.deployment.resources!.map((r) => r.urn)).toEqual([ROOT]);
    expect(history.map((h) => [h.version, h.kind, h.result])).toEqual([
      [3, 'import', 'succeeded'],
      [2, 'import', 'succeeded'],
      [1, 'import', 'succeeded'],
    ]);
    const earlier = JSON.parse((await cli('stack', 'export', '--version', '1')).stdout) as Exported;
    expect(earlier.deployment.resources!.map((r) => r.urn)).toEqual([ROOT, A, B]);
  });

  it('renames the stack, its config file and the selection', async () => {
    const renamed = await cli('stack', 'rename', 'prod');
    const listed = await cli('stack', 'ls', '--json');
    const secret = await cli('config', 'get', 'password');
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

    expect(renamed.stdout).toBe('Renamed dev to prod\n');
    expect(existsSync(join(project, 'Pulumi.dev.yaml'))).toBe(false);
    expect(existsSync(join(project, 'Pulumi.prod.yaml'))).toBe(true);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'prod', current: true, updateInProgress: false, resourceCount: 1 }]);
    expect(secret.stdout).toBe('hunter2\n');
    expect(exported.deployment.resources![0]!.urn).toBe('urn:pulumi:prod::demo::pulumi:pulumi:Stack::demo-prod');
  });

  it('says clearly when there is nothing to cancel', async () => {
    const result = await cli('cancel', '--yes');

    expect(result.status).toBe(1);
    expect(result.stderr).toBe("error: stack 'prod' has no update in progress; there is nothing to cancel\n");
  });

  it('needs --yes to remove a stack without a terminal, and --force while it holds resources', async () => {
    await cli('stack', 'import', '--file', join(sandbox.root, 'import.json'), '--force');

    const withoutYes = await cli('stack', 'rm');
    const withResources = await cli('stack', 'rm', '--yes');
    const forced = await cli('stack', 'rm', '--yes', '--force');
    const listed = await cli('stack', 'ls', '--json');

    expect(withoutYes.status).toBe(1);
    expect(withoutYes.stderr).toContain('--yes must be passed in to proceed when running in non-interactive mode');
    expect(withResources.status).toBe(1);
    expect(withResources.stderr).toContain("'prod' still has resources; removal rejected");
    expect(forced.stdout).toBe("Stack 'prod' has been removed!\n");
    expect(existsSync(join(project, 'Pulumi.prod.yaml'))).toBe(false);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('imports a state that fails the integrity check only with --force, recording it as Pulumi records a broken snapshot', async () => {
    await cli('stack', 'init', 'broken');
    const orphan = urn('broken', 'test:index:Thing', 'orphan');
    const file = join(sandbox.root, 'broken.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 3,
        deployment: {
          manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: 'v3.248.0' },
          resources: [{ urn: orphan, custom: true, id: 'o-1', type: 'test:index:Thing', parent: urn('broken', 'x:y:Gone', 'gone') }],
        },
      }),
    );

    const refused = await cli('stack', 'import', '--file', file, '-s', 'broken');
    const forced = await cli('stack', 'import', '--file', file, '-s', 'broken', '--force');
    const exported = JSON.parse((await cli('stack', 'export', '-s', 'broken')).stdout) as { deployment: { metadata?: { integrity_error?: { command?: string; error?: string } } } };

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('state file contains errors');
    expect(forced.status).toBe(0);
    expect(forced.stderr).toContain('state file contains errors');
    expect(forced.stdout).toContain('Import complete.');
    expect(exported.deployment.metadata?.integrity_error).toMatchObject({ command: 'stackyard stack import --force', error: expect.stringContaining('orphan') });
    await cli('stack', 'rm', '--yes', '--force', '-s', 'broken');
  });

  it('refuses a bad stack name', async () => {
    const result = await cli('stack', 'init', 'no spaces!');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Invalid stack name 'no spaces!'");
  });

  it('asks for a project when there is no Pulumi.yaml', async () => {
    const result = await sandbox.run(sandbox.home, ['stack', 'init', 'x']);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no Pulumi.yaml project file found');
    expect(result.stderr).toContain('-C <dir>');
  });

  it('names an unknown stack and how to create it', async () => {
    const result = await cli('stack', 'select', 'nope');

    expect(result.status).toBe(1);
    expect(result.stderr).toBe("error: no stack named 'nope' found\n  Create it with `stackyard stack init nope`, or pass --create.\n");
  });

  it('refuses a pulumi flag it does not implement, saying why, and changes nothing', async () => {
    const refused = await cli('stack', 'init', 'flagged', '--secrets-provider', 'passphrase');
    const remote = await cli('stack', 'init', 'flagged', '--remote-config');
    const refusedGlobal = await cli('--emoji', 'stack', 'init', 'flagged');
    const listed = await cli('stack', 'ls', '--json');
    const created = await cli('stack', 'init', 'flagged');

    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("error: --secrets-provider is not supported by stackyard: each stack's secrets");
    // As Pulumi's DIY backend: only a service keeps a stack's configuration in an environment.
    expect(remote.status).toBe(1);
    expect(remote.stderr).toContain('error: could not create stack: remote config is not supported');
    expect(refusedGlobal.status).toBe(2);
    expect(refusedGlobal.stderr).toContain('error: --emoji is not supported by stackyard');
    expect(listed.stdout).not.toContain('flagged');
    expect(created.status).toBe(0);
  });

  it('exits 2 on a usage error', async () => {
    const result = await cli('stack', 'rename');

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("missing required argument 'new-name'");
  });

  it('reads -s after the command name and -C before it', async () => {
    const result = await sandbox.run(sandbox.root, ['-C', project, 'stack', 'tag', 'ls', '--json', '-s', 'flagged']);

    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ 'pulumi:project': 'demo' });
  });

  it('refuses a ciphertext copied from another stack\'s file, naming the key', async () => {
    await cli('stack', 'init', 'a');
    await cli('config', 'set', '--secret', 'apiKey', 'k-123', '-s', 'a');
    await cli('stack', 'init', 'b');
    writeFileSync(join(project, 'Pulumi.b.yaml'), readFileSync(join(project, 'Pulumi.a.yaml'), 'utf8'));

    const own = await cli('config', 'get', 'apiKey', '-s', 'a');
    const copied = await cli('config', 'get', 'apiKey', '-s', 'b');

    expect(own.stdout).toBe('k-123\n');
    expect(copied.status).toBe(1);
    expect(copied.stderr).toContain("error: cannot decrypt configuration value 'demo:apiKey' in Pulumi.b.yaml");
    expect(copied.stderr).toContain('stackyard config set --secret demo:apiKey <value>');
  });

  it('copies config to a new stack with its secrets re-encrypted under the new key', async () => {
    const init = await cli('stack', 'init', 'c', '--copy-config-from', 'a');
    const get = await cli('config', 'get', 'apiKey', '-s', 'c');

    expect(init.status, init.stderr).toBe(0);
    expect(get.stdout).toBe('k-123\n');
    const secureOf = (stack: string) => /secure: (\S+)/.exec(readFileSync(join(project, `Pulumi.${stack}.yaml`), 'utf8'))![1];
    expect(secureOf('c')).not.toBe(secureOf('a'));
  });

  it('says how to log in when no backend is chosen', async () => {
    const fresh = new CliSandbox();

    const result = await fresh.run(project, ['stack', 'ls']);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('error: you are not logged in to a backend');
    expect(result.stderr).toContain('stackyard login --local');
  });

  it('refuses `login` without a URL instead of picking a default host', async () => {
    const result = await cli('login');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no backend URL given');
  });
});
