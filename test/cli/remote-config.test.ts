/**
 * A stack created with `stackyard stack init --remote-config` through `stackyard serve`: its configuration lives in the
 * ESC environment `<project>/<stack>`, as `pulumi stack init --remote-config` keeps it (pkg/cmd/pulumi/stack/io.go):
 * `config set` points at `env set` as Pulumi's does, the program sees the environment's plain and secret values, no
 * `Pulumi.<stack>.yaml` is written, and a local one is ignored with Pulumi's warning (needs `npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes, startServe, stopServe } from './cli-harness.js';

const SECRET = `remote-secret-${randomBytes(6).toString('hex')}`;

describe('a stack with remote config through `stackyard serve`', () => {
  const adminToken = `sy_${randomBytes(24).toString('hex')}`;
  const server = new CliSandbox();
  const sandbox = new CliSandbox();
  let serve: ChildProcess;
  let url: string;

  beforeAll(async () => {
    ({ url, serve } = await startServe(server, adminToken));
  });

  afterAll(async () => {
    if (serve) await stopServe(serve);
    removeSandboxes();
  });

  it('keeps the configuration in the environment <project>/<stack>: env set, config --open, up, env get', async () => {
    const project = sandbox.project('remotecfg', 'name: remotecfg\nruntime: nodejs\n', {
      'index.js':
        "const pulumi = require('@pulumi/pulumi');\n" +
        'const cfg = new pulumi.Config();\n' +
        "exports.size = cfg.require('size');\n" +
        "exports.password = cfg.requireSecret('password');\n",
    });
    const cli = (...args: string[]) => sandbox.run(project, args);
    expect((await sandbox.run(project, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } })).status).toBe(0);

    const init = await cli('stack', 'init', 'dev', '--remote-config');
    const empty = await cli('config');
    const setRefused = await cli('config', 'set', 'size', 'large');
    const secretRefused = await cli('config', 'set', 'password', SECRET, '--secret');
    const rmRefused = await cli('config', 'rm', 'size');
    const setPlain = await cli('env', 'set', 'remotecfg/dev', 'pulumiConfig.remotecfg:size', 'large');
    const setSecret = await cli('env', 'set', 'remotecfg/dev', 'pulumiConfig.password', SECRET, '--secret');
    const open = await cli('config', '--open');
    const checked = await cli('config');
    const get = await cli('config', 'get', 'size');
    const up = await cli('up', '--yes', '--skip-preview');
    const outputs = await cli('stack', 'output', '--json', '--show-secrets');
    const envGet = await cli('env', 'get', 'remotecfg/dev');

    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toBe("Created stack 'dev'\nCreated environment remotecfg/dev for stack configuration\n");
    expect(empty.stdout).toBe(
      "KEY  VALUE\nThe stack's environment does not define the `environmentVariables`, `files`, or `pulumiConfig` properties.\n" +
        "Without at least one of these properties, the environment will not affect the stack's behavior.\n\n",
    );
    expect(setRefused.status).toBe(1);
    expect(setRefused.stderr).toContain(
      'error: config set not supported for remote stack config: use `stackyard env set remotecfg/dev pulumiConfig.remotecfg:size large`',
    );
    expect(secretRefused.stderr).toContain('use `stackyard env set remotecfg/dev pulumiConfig.remotecfg:password --secret <value>`');
    expect(rmRefused.stderr).toContain('error: config rm not supported for remote stack config: use `stackyard env rm remotecfg/dev pulumiConfig.remotecfg:size` to update config environment');
    expect([setPlain.status, setSecret.status], setPlain.stderr + setSecret.stderr).toEqual([0, 0]);
    expect(open.stdout).toBe('KEY       VALUE\npassword  [secret]\nsize      large\n');
    expect(checked.stdout).toBe(open.stdout);
    expect(get.stdout).toBe('large\n');
    expect(up.status, up.stderr).toBe(0);
    expect(JSON.parse(outputs.stdout)).toEqual({ size: 'large', password: SECRET });
    expect(existsSync(join(project, 'Pulumi.dev.yaml')), 'no stack file is written').toBe(false);
    expect(envGet.status, envGet.stderr).toBe(0);
    expect(envGet.stdout).toContain('remotecfg:size: large');
    expect(envGet.stdout).toContain('[secret]');
    expect(envGet.stdout).not.toContain(SECRET);
  });

  it('ignores a local Pulumi.<stack>.yaml with Pulumi\'s warning, and refuses the edits Pulumi refuses', async () => {
    const project = sandbox.project('remotewarn', 'name: remotewarn\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    expect((await cli('stack', 'init', 'dev', '--remote-config')).status).toBe(0);
    expect((await cli('env', 'set', 'remotewarn/dev', 'pulumiConfig.size', 'small')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), 'config:\n  remotewarn:size: huge\n');

    const listed = await cli('config', '--open');
    const refresh = await cli('config', 'refresh');
    const envAdd = await cli('config', 'env', 'add', 'remotewarn/dev', '--yes');

    expect(listed.stdout).toBe('KEY   VALUE\nsize  small\n');
    expect(listed.stderr).toContain(`warning: config file ${join(project, 'Pulumi.dev.yaml')} exists but will be ignored because this stack uses remote config`);
    expect(refresh.status).toBe(1);
    expect(refresh.stderr).toContain('error: cannot refresh stacks with remote config');
    expect(envAdd.status).toBe(1);
    expect(envAdd.stderr).toContain('error: cannot set config for a stack with cloud config');
  });
});
