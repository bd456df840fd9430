/**
 * A representative subset of the engine conformance suite (test/engine/conformance/) through the bundled CLI, on
 * `login --local` and on `stackyard serve`: a target naming nothing, `destroy --target` with a dependent, with and
 * without `--target-dependents`, `--replace`, and `refresh`/`destroy --run-program` (needs `npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, TESTPROV_DIR, removeSandboxes, startServe, stopServe, type CliResult } from './cli-harness.js';

const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

interface Exported {
  deployment: { resources?: { urn: string; id?: string; delete?: boolean }[]; pending_operations?: unknown[] };
}

const program = {
  resources: [
    { name: 'a', props: { value: 1 } },
    { name: 'b', props: { value: 1 }, refs: { upstream: 'a' } },
    { name: 'c', props: { value: 1 } },
  ],
  outputs: { aId: 'a' },
};

const urn = (name: string) => `urn:pulumi:dev::conformance::testprov:index:Thing::${name}`;
const both = (r: CliResult) => r.stdout + r.stderr;

describe.each(['local', 'serve'] as const)('engine conformance through the CLI on %s', (backend) => {
  // made in beforeAll: the other backend's afterAll removes every sandbox that exists when it runs
  let sandbox: CliSandbox;
  let world: string;
  let serve: ChildProcess | undefined;
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args, { env: { TESTPROV_WORLD: world } });
  const resources = async () => ((JSON.parse((await cli('stack', 'export')).stdout) as Exported).deployment.resources ?? []);

  beforeAll(async () => {
    sandbox = new CliSandbox();
    world = join(sandbox.root, 'world');
    mkdirSync(world);
    project = sandbox.project('conformance', `name: conformance\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`);
    copyFileSync(join(REPO, 'test/fixtures/programs/conformance/index.js'), join(project, 'index.js'));
    if (backend === 'local') {
      await cli('login', '--local');
    } else {
      const adminToken = `sy_${randomBytes(24).toString('hex')}`;
      const started = await startServe(new CliSandbox(), adminToken);
      serve = started.serve;
      await sandbox.run(project, ['login', started.url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } });
    }
    await cli('stack', 'init', 'dev');
    await cli('config', 'set', 'program', JSON.stringify(program));
    const up = await cli('up', '--yes');
    expect(up.status, both(up)).toBe(0);
  }, 120_000);

  afterAll(async () => {
    if (serve) await stopServe(serve);
    removeSandboxes();
  });

  it('fails `up --target` naming no resource, and stores no unknown output', async () => {
    const before = await cli('stack', 'output', '--json');

    const up = await cli('up', '--yes', '--target', urn('nope'));
    const after = await cli('stack', 'output', '--json');

    expect(up.status).toBe(1);
    expect(both(up)).toContain(`Target '${urn('nope')}' could not be found in the stack.`);
    expect(after.stdout).not.toContain(UNKNOWN);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
  }, 120_000);

  it('refuses `destroy --target` with a dependent, naming it, and leaves the state whole', async () => {
    const destroy = await cli('destroy', '--yes', '--target', urn('a'));
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

    expect(destroy.status).toBe(1);
    expect(both(destroy)).toContain(`Resource '${urn('b')}' will be destroyed but was not specified in --target list.`);
    expect(exported.deployment.pending_operations ?? []).toEqual([]);
    expect((exported.deployment.resources ?? []).map((r) => r.urn)).toEqual(expect.arrayContaining([urn('a'), urn('b'), urn('c')]));
  }, 120_000);

  it('replaces with `up --replace`, then destroys a target and its dependents with --target-dependents', async () => {
    const oldId = (await resources()).find((r) => r.urn === urn('a'))?.id;

    const replaced = await cli('up', '--yes', '--replace', urn('a'));
    const newId = (await resources()).find((r) => r.urn === urn('a'))?.id;
    const destroyed = await cli('destroy', '--yes', '--target', urn('a'), '--target-dependents');
    const left = (await resources()).filter((r) => r.urn.includes('testprov:index:Thing')).map((r) => r.urn);

    expect(replaced.status, both(replaced)).toBe(0);
    expect(newId).toBeDefined();
    expect(newId).not.toBe(oldId);
    expect(destroyed.status, both(destroyed)).toBe(0);
    expect(left).toEqual([urn('c')]);
  }, 120_000);

  it('refresh --run-program, then destroy --run-program, leave an empty stack (on serve, through journal entries)', async () => {
    const refreshed = await cli('refresh', '--yes', '--run-program');
    const afterRefresh = (await resources()).map((r) => r.urn);
    const destroyed = await cli('destroy', '--yes', '--run-program');
    const left = await resources();

    expect(refreshed.status, both(refreshed)).toBe(0);
    // the program declares a and b again, but a refresh creates nothing
    expect(afterRefresh).not.toContain(urn('a'));
    expect(afterRefresh).toContain(urn('c'));
    expect(destroyed.status, both(destroyed)).toBe(0);
    expect(left).toEqual([]);
  }, 120_000);
});
