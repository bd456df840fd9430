/**
 * `stackyard admin oidc-key ls|rotate` against a real `stackyard serve` (local storage) and under `login --local`:
 * a rotation publishes the next key at once (serve's JWKS carries both), a second rotation while it waits is refused
 * naming the key, and a user who is not an administrator is refused (needs `npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

interface KeyView {
  generation: number;
  kid: string;
  state: string;
}

let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
});

afterAll(async () => {
  await serve.stop();
  removeSandboxes();
});

describe.each(['serve', '--local'] as const)('stackyard admin oidc-key on %s', (backend) => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  it('rotates: the next key is published at once and waits to sign; a second rotation meanwhile is refused', async () => {
    project = sandbox.project('keys', 'name: keys\nruntime: nodejs\n');
    const login = backend === 'serve' ? await sandbox.run(project, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } }) : await cli('login', '--local');
    expect(login.status, login.stderr).toBe(0);

    const rotate = await cli('admin', 'oidc-key', 'rotate');
    const ls = await cli('admin', 'oidc-key', 'ls', '--json');
    const again = await cli('admin', 'oidc-key', 'rotate');

    expect(rotate.status, rotate.stderr).toBe(0);
    const keys = JSON.parse(ls.stdout) as KeyView[];
    expect(keys.map((k) => [k.generation, k.state])).toEqual([[1, 'signing'], [2, 'next']]);
    expect(rotate.stdout).toContain(`Made key ${keys[1]!.kid} (generation 2): published now, it signs from `);
    expect(rotate.stdout).toContain(`Key ${keys[0]!.kid} signs until then and stays published until `);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain(`Key ${keys[1]!.kid} (generation 2) from an earlier rotation starts signing at `);
    if (backend === 'serve') {
      const jwks = (await (await fetch(`${serve.url}/oidc/.well-known/jwks`)).json()) as { keys: { kid: string }[] };
      expect(jwks.keys.map((k) => k.kid)).toEqual(keys.map((k) => k.kid));
    }
  }, 60_000);
});

describe('stackyard admin oidc-key for a user who is not an administrator', () => {
  it('is refused, and nothing rotates', async () => {
    const admin = new CliSandbox({ STACKYARD_ACCESS_TOKEN: serve.adminToken });
    const adminProject = admin.project('keys', 'name: keys\nruntime: nodejs\n');
    expect((await admin.run(adminProject, ['login', serve.url])).status).toBe(0);
    expect((await admin.run(adminProject, ['user', 'create', 'carol'])).status).toBe(0);
    const token = (await admin.run(adminProject, ['token', 'create', '--login', 'carol'])).stdout.trim();
    const carol = new CliSandbox({ STACKYARD_ACCESS_TOKEN: token });
    const carolProject = carol.project('keys', 'name: keys\nruntime: nodejs\n');
    expect((await carol.run(carolProject, ['login', serve.url])).status).toBe(0);
    const before = await admin.run(adminProject, ['admin', 'oidc-key', 'ls', '--json']);

    const rotate = await carol.run(carolProject, ['admin', 'oidc-key', 'rotate']);

    expect(rotate.status).not.toBe(0);
    expect(rotate.stderr).toContain("Only administrators may do this, and 'carol' is not one");
    expect((await admin.run(adminProject, ['admin', 'oidc-key', 'ls', '--json'])).stdout).toBe(before.stdout);
  }, 60_000);
});
