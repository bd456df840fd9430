/**
 * The bundled CLI against `stackyard serve` (a real child process on local storage): login with the administrator
 * token, the stack and config commands over HTTP, moving a stack from `--local` by export/import, organizations,
 * users and tokens, and how service errors read (needs `npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, TESTPROV_DIR, removeSandboxes, startServe, stopServe } from './cli-harness.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';

interface Exported {
  deployment: { resources?: { urn: string; outputs?: Record<string, Record<string, string>> }[] };
}

/** A deployment of stack `stack` as `stack export --show-secrets` writes it: a root resource with a plaintext secret. */
function plaintextDeployment(stack: string) {
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
      resources: [
        {
          urn: `urn:pulumi:${stack}::demo::pulumi:pulumi:Stack::demo-${stack}`,
          custom: false,
          type: 'pulumi:pulumi:Stack',
          outputs: { dbPassword: { [SIG]: SECRET, plaintext: '"moved-secret"' } },
        },
      ],
    },
  };
}

describe('stackyard against `stackyard serve`', () => {
  const adminToken = `sy_${randomBytes(24).toString('hex')}`;
  const server = new CliSandbox();
  const sandbox = new CliSandbox();
  let serve: ChildProcess;
  let url: string;
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(async () => {
    ({ url, serve } = await startServe(server, adminToken));
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
  });

  afterAll(async () => {
    if (serve) await stopServe(serve);
    removeSandboxes();
  });

  it('logs in with the token from STACKYARD_ACCESS_TOKEN and stores it privately', async () => {
    const login = await sandbox.run(project, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } });
    const whoami = await cli('whoami', '--json');

    expect(login.status, login.stderr).toBe(0);
    expect(login.stdout).toBe(`Logged in to ${url} as admin\n`);
    const file = join(sandbox.home, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ current: url, accessTokens: { [url]: adminToken } });
    expect(JSON.parse(whoami.stdout)).toEqual({ user: 'admin', url });
  });

  it('refuses a token the service does not know, saying what to do', async () => {
    const other = new CliSandbox();

    const result = await other.run(project, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: 'sy_not-a-real-token' } });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`error: ${url} did not accept the access token`);
    expect(result.stderr).toContain('stackyard token create');
  });

  it('keeps config secrets under the server stack key', async () => {
    const init = await cli('stack', 'init', 'dev');
    await cli('config', 'set', '--secret', 'password', 'hunter2');
    const get = await cli('config', 'get', 'password');
    const listed = await cli('stack', 'ls', '--json');
    const history = await cli('stack', 'history');

    expect(init.stdout).toBe("Created stack 'dev'\n");
    expect(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8')).not.toContain('hunter2');
    expect(get.stdout).toBe('hunter2\n');
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'dev', current: true, url: `${url}/admin/demo/dev` }]);
    expect(history.stdout).toBe('Stack has never been updated\n');
  });

  it('sets and lists tags', async () => {
    await cli('stack', 'tag', 'set', 'team', 'platform');
    const removed = await cli('stack', 'tag', 'rm', 'pulumi:runtime');
    const tags = await cli('stack', 'tag', 'ls', '--json');
    const one = await cli('stack', 'tag', 'get', 'team');

    expect(removed.status).toBe(0);
    expect(JSON.parse(tags.stdout)).toEqual({ 'pulumi:project': 'demo', team: 'platform' });
    expect(one.stdout).toBe('platform\n');
  });

  it('moves a stack from --local: plaintext secrets in the export are re-encrypted with the server key', async () => {
    const local = new CliSandbox();
    const localProject = local.project('demo', 'name: demo\nruntime: nodejs\n');
    await local.run(localProject, ['login', '--local']);
    await local.run(localProject, ['stack', 'init', 'dev']);
    const seed = join(local.root, 'seed.json');
    writeFileSync(seed, JSON.stringify(plaintextDeployment('dev')));
    await local.run(localProject, ['stack', 'import', '--file', seed]);
    const exportFile = join(local.root, 'export.json');
    await local.run(localProject, ['stack', 'export', '--show-secrets', '--file', exportFile]);

    const imported = await cli('stack', 'import', '--file', exportFile);
    const stored = await cli('stack', 'export');
    const output = await cli('stack', 'output', 'dbPassword', '--show-secrets');

    expect(readFileSync(exportFile, 'utf8')).toContain('moved-secret');
    expect(imported.stdout).toBe('Import complete.\n');
    expect(stored.stdout).not.toContain('moved-secret');
    expect((JSON.parse(stored.stdout) as Exported).deployment.resources![0]!.outputs!.dbPassword!.ciphertext).toBeTypeOf('string');
    expect(output.stdout).toBe('moved-secret\n');
  });

  it('moves a stack from --local without plaintext on disk: the export\'s ciphertexts are opened by its local key', async () => {
    const local = new CliSandbox();
    const localProject = local.project('demo', 'name: demo\nruntime: nodejs\n');
    await local.run(localProject, ['login', '--local']);
    await local.run(localProject, ['stack', 'init', 'staging']);
    const seed = join(local.root, 'seed.json');
    writeFileSync(seed, JSON.stringify(plaintextDeployment('staging')));
    await local.run(localProject, ['stack', 'import', '--file', seed]);
    const exportFile = join(local.root, 'sealed-export.json');
    await local.run(localProject, ['stack', 'export', '--file', exportFile]);
    await cli('stack', 'init', 'staging', '--no-select');

    const imported = await cli('stack', 'import', '--file', exportFile, '-s', 'staging');
    const output = await cli('stack', 'output', 'dbPassword', '--show-secrets', '-s', 'staging');

    expect(readFileSync(exportFile, 'utf8')).not.toContain('moved-secret');
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('Secrets re-encrypted from the service file://');
    expect(output.stdout).toBe('moved-secret\n');
    await cli('stack', 'rm', '--yes', '--force', '-s', 'staging');
  });

  it('imports another stack\'s export as Pulumi does: its ciphertexts re-encrypted with this stack\'s key', async () => {
    const foreign = join(sandbox.root, 'foreign.json');
    writeFileSync(foreign, (await cli('stack', 'export')).stdout);
    await cli('stack', 'init', 'other');

    const result = await cli('stack', 'import', '--file', foreign, '--force', '-s', 'other');
    const output = await cli('stack', 'output', 'dbPassword', '--show-secrets', '-s', 'other');
    const stored = (await cli('stack', 'export', '-s', 'other')).stdout;

    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Secrets re-encrypted from the service ${url} (stack admin/demo/dev) secrets provider`);
    expect(output.stdout).toBe('moved-secret\n');
    expect(stored).not.toContain('moved-secret');
    expect(JSON.parse(stored).deployment.secrets_providers.state.stack).toBe('other');
  });

  it('refuses ciphertexts that name no provider and are not this stack\'s, pointing at --show-secrets', async () => {
    const exported = JSON.parse((await cli('stack', 'export', '-s', 'dev')).stdout);
    delete exported.deployment.secrets_providers;
    const foreign = join(sandbox.root, 'no-provider.json');
    writeFileSync(foreign, JSON.stringify(exported));

    const result = await cli('stack', 'import', '--file', foreign, '--force', '-s', 'other');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("cannot decrypt (encrypted with another stack's key, or altered)");
    expect(result.stderr).toContain('stackyard stack export --show-secrets');
  });

  it('renames, says when there is nothing to cancel, and removes', async () => {
    await cli('stack', 'select', 'dev');
    const renamed = await cli('stack', 'rename', 'prod');
    const secret = await cli('config', 'get', 'password');
    const cancel = await cli('cancel', '--yes');
    const removed = await cli('stack', 'rm', '--yes', '--force');
    const listed = await cli('stack', 'ls', '--json');

    expect(renamed.stdout).toBe('Renamed dev to prod\n');
    expect(secret.stdout).toBe('hunter2\n');
    expect(cancel.status).toBe(1);
    expect(cancel.stderr).toBe("error: stack 'prod' has no update in progress; there is nothing to cancel\n");
    expect(removed.stdout).toBe("Stack 'prod' has been removed!\n");
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'other', current: false, resourceCount: 1 }]);
  });

  it('runs `up` through the service with secrets encrypted in the stored state', async () => {
    const world = join(sandbox.root, 'world');
    mkdirSync(world);
    const app = sandbox.project('app', `name: app\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
      'index.js':
        "const pulumi = require('@pulumi/pulumi');\n" +
        "const cfg = new pulumi.Config();\n" +
        "new pulumi.CustomResource('testprov:index:Thing', 'one', { value: 1, password: cfg.requireSecret('password') });\n",
    });
    const run = (...args: string[]) => sandbox.run(app, args, { env: { TESTPROV_WORLD: world } });
    await run('stack', 'init', 'web');
    await run('config', 'set', '--secret', 'password', 'p4ssw0rd');

    const up = await run('up', '--yes', '--skip-preview');
    const exported = await run('stack', 'export');
    const history = await run('stack', 'history', '--json');

    expect(up.status, up.stderr).toBe(0);
    expect(exported.stdout).toContain('urn:pulumi:web::app::testprov:index:Thing::one');
    expect(exported.stdout).not.toContain('p4ssw0rd');
    // The default provider is internal to the engine, as in Pulumi: neither shown nor counted.
    expect(JSON.parse(history.stdout)).toMatchObject([{ version: 1, kind: 'update', result: 'succeeded', resourceChanges: { create: 2 } }]);
    // Pulumi Cloud's banner (no colon, a blank line), then the update's page in the console.
    expect(up.stdout).toMatch(new RegExp(`^Updating \\(web\\)\n\nView Live: ${url.replace(/[.]/g, '\\.')}/[^/]+/app/web/updates/1\n\n`));
    expect(up.stdout).not.toContain('pulumi:providers:testprov');
  });

  it('manages organizations, users and tokens; a revoked token is refused with the next step', async () => {
    const org = await cli('org', 'create', 'acme');
    const user = await cli('user', 'create', 'bob', '--name', 'Bob');
    const member = await cli('org', 'add-member', 'acme', 'bob');
    const orgs = await cli('org', 'ls', '--json');
    const created = await cli('token', 'create', '--login', 'bob', '--description', 'ci');
    const bobToken = created.stdout.trim();
    const bob = new CliSandbox({ STACKYARD_BACKEND_URL: url, STACKYARD_ACCESS_TOKEN: bobToken });
    const bobWhoami = await bob.run(bob.root, ['whoami', '--json']);
    const tokens = JSON.parse((await cli('token', 'ls', '--login', 'bob', '--json')).stdout) as { id: string; description: string; login: string }[];
    const revoked = await cli('token', 'revoke', tokens[0]!.id, '--login', 'bob');
    const refused = await bob.run(bob.root, ['whoami']);

    expect([org.status, user.status, member.status]).toEqual([0, 0, 0]);
    expect(JSON.parse(orgs.stdout)).toContainEqual({ name: 'acme', role: 'admin' });
    expect(created.stdout).toMatch(/^sy_\S+\n$/);
    expect(created.stderr).toContain('shown once');
    expect(JSON.parse(bobWhoami.stdout)).toEqual({ user: 'bob', organizations: ['acme'], url });
    expect(tokens).toMatchObject([{ description: 'ci', login: 'bob' }]);
    expect(revoked.stdout).toBe(`Revoked token ${tokens[0]!.id}\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^error: \[401\] .+\n {2}Run `stackyard login <url>` with a valid access token/);
  });
});
