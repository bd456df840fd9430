/**
 * `stackyard stack rollback --to N` through the bundled CLI, on `stackyard serve` and on `login --local`: the state
 * afterwards equals version N's, a new history entry says so, and a running update's lease refuses it (needs
 * `npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';

/** A deployment of `demo/<stack>` with `count` buckets and a secret output. */
function deploymentWith(stack: string, count: number) {
  const urn = (type: string, name: string) => `urn:pulumi:${stack}::demo::${type}::${name}`;
  const provider = urn('pulumi:providers:random', 'default');
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
      resources: [
        { urn: urn('pulumi:pulumi:Stack', `demo-${stack}`), custom: false, type: 'pulumi:pulumi:Stack', outputs: { count, token: { [SIG]: SECRET, plaintext: `"token-${count}"` } } },
        { urn: provider, custom: true, id: 'p1', type: 'pulumi:providers:random' },
        ...Array.from({ length: count }, (_, i) => ({
          urn: urn('random:index:Bucket', `b${i}`),
          custom: true,
          id: `id-${i}`,
          type: 'random:index:Bucket',
          provider: `${provider}::p1`,
          parent: urn('pulumi:pulumi:Stack', `demo-${stack}`),
        })),
      ],
    },
  };
}

interface Backend {
  name: string;
  login(sandbox: CliSandbox, project: string): Promise<void>;
}

let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
});

afterAll(async () => {
  await serve?.stop();
  removeSandboxes();
});

const backends: Backend[] = [
  {
    name: 'serve',
    async login(sandbox, project) {
      await sandbox.run(project, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
    },
  },
  {
    name: '--local',
    async login(sandbox, project) {
      await sandbox.run(project, ['login', '--local']);
    },
  },
];

describe.each(backends)('stack rollback on $name', (backend) => {
  it('restores version N as a new version: the state equals N and history records it', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await backend.login(sandbox, project);
    await cli('stack', 'init', 'dev');
    for (const count of [1, 3, 0]) {
      const file = join(sandbox.root, `v${count}.json`);
      writeFileSync(file, JSON.stringify(deploymentWith('dev', count)));
      expect((await cli('stack', 'import', '--file', file)).status).toBe(0);
    }
    const version2 = JSON.parse((await cli('stack', 'export', '--version', '2')).stdout);

    const rolled = await cli('stack', 'rollback', '--to', '2', '--yes');
    const current = JSON.parse((await cli('stack', 'export')).stdout);
    const history = JSON.parse((await cli('stack', 'history', '--json')).stdout);
    const token = await cli('stack', 'output', 'token', '--show-secrets');

    expect(rolled.status, rolled.stderr).toBe(0);
    expect(rolled.stdout).toBe("Rolled back stack 'dev' to version 2; the restored state is version 4.\n");
    expect(current).toEqual(version2);
    expect(history[0]).toMatchObject({ version: 4, kind: 'import', message: 'Rollback to version 2', result: 'succeeded' });
    expect(history).toHaveLength(4);
    expect(token.stdout).toBe('token-3\n');
  });

  it('refuses a version the stack never had and a missing --yes without a terminal, changing nothing', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await backend.login(sandbox, project);
    await cli('stack', 'init', 'qa');
    const file = join(sandbox.root, 'v.json');
    writeFileSync(file, JSON.stringify(deploymentWith('qa', 1)));
    await cli('stack', 'import', '--file', file);

    const unknown = await cli('stack', 'rollback', '--to', '5', '--yes');
    const unconfirmed = await cli('stack', 'rollback', '--to', '1');
    const history = JSON.parse((await cli('stack', 'history', '--json')).stdout);

    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("stack 'qa' has no version 5: it is at version 1");
    expect(unconfirmed.status).toBe(1);
    expect(unconfirmed.stderr).toContain('--yes must be passed in to proceed');
    expect(history).toHaveLength(1);
  });
});

describe('stack rollback while an update holds the lease (serve)', () => {
  it('is refused by the service, naming the update, and changes nothing', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await sandbox.run(project, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
    await cli('stack', 'init', 'held');
    const file = join(sandbox.root, 'v.json');
    writeFileSync(file, JSON.stringify(deploymentWith('held', 1)));
    await cli('stack', 'import', '--file', file);
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${serve.url}${path}`, {
        method: 'POST',
        headers: { authorization: `token ${serve.adminToken}`, 'content-type': 'application/json', accept: 'application/vnd.pulumi+8' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, string>;
    };
    const stackPath = '/api/stacks/admin/demo/held';
    const created = await api(`${stackPath}/update`, {
      name: 'demo',
      runtime: 'nodejs',
      options: { dryRun: false },
      config: {},
      metadata: { message: 'long update', environment: {} },
    });
    await api(`${stackPath}/update/${created.updateID}`, { tags: {} });
    const before = (await cli('stack', 'export')).stdout;

    const refused = await cli('stack', 'rollback', '--to', '1', '--yes');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`update ${created.updateID} by admin is in progress`);
    expect((await cli('stack', 'export')).stdout).toBe(before);
    expect(JSON.parse((await cli('stack', 'history', '--json')).stdout)).toHaveLength(1);
  });
});
