/**
 * `org`, `org get-default`, `org set-default` and `login --default-org` through the bundled CLI, against
 * `stackyard serve` and on `login --local`: the default organization kept per backend in `$STACKYARD_HOME/config.json`
 * as Pulumi keeps it in `~/.pulumi/config.json` (needs `npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes, startServe, stopServe } from './cli-harness.js';

describe('the default organization', () => {
  const adminToken = `sy_${randomBytes(24).toString('hex')}`;
  const sandbox = new CliSandbox({ STACKYARD_ACCESS_TOKEN: adminToken });
  let serve: ChildProcess;
  let url: string;
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const configFile = join(sandbox.home, 'config.json');

  beforeAll(async () => {
    ({ url, serve } = await startServe(new CliSandbox(), adminToken));
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    await cli('login', url);
    await cli('org', 'create', 'acme');
  });
  afterAll(async () => {
    await stopServe(serve);
    removeSandboxes();
  });

  it('is the service\'s until one is set, then the one set, for new stacks too', async () => {
    // Act
    const before = await cli('org');
    const set = await cli('org', 'set-default', 'acme');
    const after = await cli('org', 'get-default');
    const summary = await cli('org');
    await cli('stack', 'init', 'dev');
    const listed = await cli('stack', 'ls', '-o', 'acme', '--json');

    // Assert
    expect(before.stdout).toBe(`Current Backend: ${url}\nDefault Org: admin\n`);
    expect([set.status, set.stdout]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ backends: { [url]: { defaultOrg: 'acme' } } });
    expect(after.stdout).toBe('acme\n');
    expect(summary.stdout).toBe(`Current Backend: ${url}\nDefault Org: acme\n`);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'dev' }]);
  });

  it('is forgotten at logout and set again by login --default-org', async () => {
    const logout = await cli('logout');
    const gone = existsSync(configFile);
    const login = await cli('login', url, '--default-org', 'acme');

    expect([logout.status, gone]).toEqual([0, false]);
    expect(login.status, login.stderr).toBe(0);
    expect((await cli('org', 'get-default')).stdout).toBe('acme\n');
  });

  it('is `organization` on the local backend, which cannot change it', async () => {
    // Arrange
    const local = new CliSandbox();
    await local.run(local.root, ['login', '--local']);

    // Act
    const get = await local.run(local.root, ['org', 'get-default']);
    const set = await local.run(local.root, ['org', 'set-default', 'acme']);
    const login = await local.run(local.root, ['login', '--local', '--default-org', 'acme']);

    // Assert
    expect(get.stdout).toBe('organization\n');
    expect(set.status).toBe(1);
    expect(set.stderr).toContain('error: unable to set a default organization for backend type: local');
    expect(login.status).toBe(1);
    expect(login.stderr).toContain('error: unable to set default org for this type of backend');
    expect(existsSync(join(local.home, 'config.json'))).toBe(false);
  });
});
