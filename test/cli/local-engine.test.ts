/**
 * `up`, `destroy` and recovery from an interrupted update through the bundled CLI on `login --local`: real Node
 * programs on the test provider, state kept by the local backend (needs `npm run build`).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, REPO, TESTPROV_DIR, removeSandboxes, until } from './cli-harness.js';

interface Exported {
  deployment: {
    resources?: { urn: string; type: string; outputs?: Record<string, unknown> }[];
    pending_operations?: { type: string; resource: { urn: string } }[];
  };
}

const pulumiYaml = (name: string) =>
  `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`;

describe('engine commands on the local backend', () => {
  const sandbox = new CliSandbox();
  const world = join(sandbox.root, 'world');
  const env = { TESTPROV_WORLD: world };

  /** An `up` of a project whose `quick` is created and whose `slow` create never finishes, once both are so. */
  const stuckUp = async (name: string, upEnv: NodeJS.ProcessEnv = {}) => {
    const project = sandbox.project(name, pulumiYaml(name), {
      'index.js':
        "const pulumi = require('@pulumi/pulumi');\n" +
        "new pulumi.CustomResource('testprov:index:Thing', 'quick', { value: 1 });\n" +
        "new pulumi.CustomResource('testprov:index:Thing', 'slow', { value: 2, hang: true });\n",
    });
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');
    const running = spawn(process.execPath, [CLI, 'up', '--yes', '--skip-preview'], { cwd: project, env: { ...sandbox.env, ...env, ...upEnv }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => running.on('exit', (code) => resolve(code)));
    await until('quick to be created and slow to be pending', async () => {
      const state = JSON.parse((await cli('stack', 'export')).stdout) as Exported;
      const quick = state.deployment.resources?.some((r) => r.urn.endsWith('::quick'));
      return quick && state.deployment.pending_operations?.length ? true : undefined;
    });
    return { cli, running, exited };
  };

  beforeAll(async () => {
    mkdirSync(world);
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  it('runs `up` on a program, then exports its resources with every secret encrypted', async () => {
    const project = sandbox.project('scenario', pulumiYaml('scenario'));
    copyFileSync(join(REPO, 'test/fixtures/programs/scenario/index.js'), join(project, 'index.js'));
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');
    await cli('config', 'set', '--secret', 'password', 'hunter2');

    const up = await cli('up', '--yes');
    const exported = await cli('stack', 'export');
    const revealed = await cli('stack', 'export', '--show-secrets');
    const outputs = await cli('stack', 'output', '--json');
    const listed = await cli('stack', 'ls', '--json');
    const history = await cli('stack', 'history', '--json');

    expect(up.status, up.stderr).toBe(0);
    const state = JSON.parse(exported.stdout) as Exported;
    expect(state.deployment.resources!.map((r) => r.urn.slice(r.urn.lastIndexOf('::') + 2)).sort()).toEqual(
      ['a', 'b', 'c', 'd', 'default', 'g', 'g-child', 'scenario-dev'].sort(),
    );
    expect(exported.stdout).not.toContain('hunter2');
    expect(exported.stdout).not.toContain('s3cr3t-out');
    expect(revealed.stdout).toContain('hunter2');
    expect(revealed.stdout).toContain('s3cr3t-out');
    expect(JSON.parse(outputs.stdout)).toMatchObject({ bValue: 1, secretOut: '[secret]' });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'dev', current: true, updateInProgress: false, resourceCount: 8 }]);
    // The default provider is in the state but, as in Pulumi, neither shown nor counted.
    expect(JSON.parse(history.stdout)).toMatchObject([{ version: 1, kind: 'update', result: 'succeeded', resourceChanges: { create: 7 } }]);
    expect(up.stdout).toMatch(/^Previewing update \(dev\):\n/);
    expect(up.stdout).toContain('\nUpdating (dev):\n');
    expect(up.stdout).not.toContain('View Live');
    expect(up.stdout).toContain('    + 7 created\n');

    const destroyed = await cli('destroy', '--yes');
    const removed = await cli('stack', 'rm', '--yes');

    expect(destroyed.status, destroyed.stderr).toBe(0);
    expect(removed.stdout).toBe("Stack 'dev' has been removed!\n");
  });

  it('exits 1 when the program fails, and records the update as failed', async () => {
    const project = sandbox.project('failing', pulumiYaml('failing'));
    copyFileSync(join(REPO, 'test/fixtures/programs/failing/index.js'), join(project, 'index.js'));
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');

    const up = await cli('up', '--yes', '--skip-preview');
    const history = JSON.parse((await cli('stack', 'history', '--json')).stdout) as { kind: string; result: string }[];
    const listed = JSON.parse((await cli('stack', 'ls', '--json')).stdout) as { updateInProgress?: boolean }[];

    expect(up.status).toBe(1);
    expect(history).toMatchObject([{ kind: 'update', result: 'failed' }]);
    expect(listed[0]!.updateInProgress).toBe(false);
  });

  it('refuses a stack file whose `environment:` does not open and a project file with a key it does not implement, running nothing', async () => {
    const project = sandbox.project('esc', pulumiYaml('esc'), { 'index.js': "require('fs').writeFileSync('ran', '');\n" });
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');
    writeFileSync(join(project, 'Pulumi.dev.yaml'), 'environment:\n  - team/dev\n');

    const preview = await cli('preview');
    writeFileSync(join(project, 'Pulumi.dev.yaml'), '');
    writeFileSync(join(project, 'Pulumi.yaml'), `${pulumiYaml('esc')}backend:\n  url: file://~\n`);
    const listed = await cli('stack', 'ls');

    expect(preview.status).toBe(1);
    expect(preview.stderr).toMatch(/Pulumi.dev.yaml: `environment`: cannot open environment '[^/']+\/team\/dev'/);
    expect(existsSync(join(project, 'ran'))).toBe(false);
    expect(listed.status).toBe(1);
    expect(listed.stderr).toContain('Pulumi.yaml: `backend`: choosing the backend from the project file is not supported by stackyard');
  });

  it('cancel during `up` is recorded with its canceller and what the run did before it, as through serve', async () => {
    const { cli, running, exited } = await stuckUp('cancelled');
    // the client sends a partial batch of engine events every 2 s
    await new Promise((r) => setTimeout(r, 2_500));

    const cancelled = await cli('cancel', '--yes');
    running.kill('SIGKILL');
    await exited;
    const history = await cli('stack', 'history');
    const entries = JSON.parse((await cli('stack', 'history', '--json')).stdout) as { result: string; cancelledBy?: string; resourceChanges?: Record<string, number> }[];

    expect(cancelled.status, cancelled.stderr).toBe(0);
    expect(history.stdout).toContain('Status: failed (cancelled by local)');
    // the stack and quick (the default provider is not counted, as in Pulumi)
    expect(history.stdout).toContain('+2-0~0 ');
    expect(entries).toMatchObject([{ result: 'failed', cancelledBy: 'local', resourceChanges: { create: 2 } }]);
  });

  it('records an update killed mid-run as abandoned once its lease expired, and history says so', async () => {
    const { cli, running, exited } = await stuckUp('abandoned', { STACKYARD_LEASE_SECONDS: '2', STACKYARD_LEASE_RENEW_SECONDS: '0.5' });
    running.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 2_500));

    // A state edit records the run it finds abandoned first (as the next update, refresh or destroy would).
    const repaired = await cli('state', 'repair', '--yes');
    const history = await cli('stack', 'history');
    const entries = JSON.parse((await cli('stack', 'history', '--json')).stdout) as { version: number; result: string; endReason?: string }[];

    expect(repaired.status, repaired.stderr).toBe(0);
    expect(history.stdout).toContain('Status: failed (abandoned: its lease expired)');
    expect(entries.find((e) => e.version === 1)).toMatchObject({ result: 'failed', endReason: 'lease-expired' });
    expect(entries.filter((e) => e.endReason !== undefined)).toHaveLength(1);
  });

  it('recovers a stack whose update was killed: stack lists no pending create, cancel releases it, state repair clears it', async () => {
    const { cli, running, exited } = await stuckUp('stuck');
    running.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    running.kill('SIGTERM');
    expect(await exited).toBe(143);

    const locked = JSON.parse((await cli('stack', 'ls', '--json')).stdout) as { updateInProgress?: boolean }[];
    const summary = await cli('stack', '--show-urns');
    const cancelled = await cli('cancel', '--yes');
    const repaired = await cli('state', 'repair', '--yes');
    const after = JSON.parse((await cli('stack', 'export')).stdout) as Exported;
    const unlocked = JSON.parse((await cli('stack', 'ls', '--json')).stdout) as { updateInProgress?: boolean }[];

    expect(locked[0]!.updateInProgress).toBe(true);
    // The create in flight is a pending operation, not a resource (Pulumi's `stack` lists the snapshot's resources).
    expect(summary.stdout).toContain('Current stack resources (3):');
    expect(summary.stdout).toContain('URN: urn:pulumi:dev::stuck::testprov:index:Thing::quick');
    expect(summary.stdout).not.toContain('::slow');
    expect(cancelled.stdout).toBe("The currently running update for 'dev' has been canceled!\n");
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain('creating urn:pulumi:dev::stuck::testprov:index:Thing::slow');
    expect(repaired.stdout).toContain('Cleared 1 pending operation(s)');
    expect(after.deployment.pending_operations).toBeUndefined();
    expect(after.deployment.resources!.map((r) => r.urn)).toContain('urn:pulumi:dev::stuck::testprov:index:Thing::quick');
    expect(unlocked[0]!.updateInProgress).toBe(false);
  });
});
