/**
 * Pulumi's construct/call integration programs through the bundled CLI (needs `npm run build`), checked as their Go
 * tests check them: construct_component's lifecycle (Pulumi's `Quick` ProgramTest: up with `--logflow
 * --logtostderr`, refresh expecting no changes, destroy) with its resource, dependency and secret checks, and the
 * failing programs' messages.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes, type CliResult } from './cli-harness.js';

const COMPONENTS = join(REPO, 'test/fixtures/components');

interface Exported {
  deployment: { resources?: { urn: string; type: string; parent?: string; dependencies?: string[]; propertyDependencies?: Record<string, string[]>; outputs?: Record<string, unknown> }[] };
}

/** A sandbox project holding the program `<dir>/nodejs`, with `<dir>/testcomponent` as its testcomponent plugin. */
function project(sandbox: CliSandbox, dir: string): (...args: string[]) => Promise<CliResult> {
  const source = join(COMPONENTS, dir, 'nodejs');
  const yaml = `${readFileSync(join(source, 'Pulumi.yaml'), 'utf8')}plugins:\n  providers:\n    - name: testcomponent\n      path: ${join(COMPONENTS, dir, 'testcomponent')}\n`;
  const path = sandbox.project(dir, yaml);
  cpSync(join(source, 'index.js'), join(path, 'index.js'));
  cpSync(join(source, 'package.json'), join(path, 'package.json'));
  return (...args: string[]) => sandbox.run(path, args, { env: { PULUMI_CONFIG_PASSPHRASE: 'components' } });
}

function expectOk(r: CliResult): void {
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
}

afterAll(() => removeSandboxes());

describe('multi-language components through the CLI', () => {
  it('construct_component: up, refresh without changes and destroy; dependencies flow between program and component', async () => {
    const sandbox = new CliSandbox();
    const cli = project(sandbox, 'construct_component');
    expectOk(await cli('login', '--local'));
    expectOk(await cli('stack', 'init', 'dev'));
    expectOk(await cli('config', 'set', '--secret', 'secret', 'this super secret is encrypted'));

    // as Pulumi's test: the logging flags (handed on to the component's provider) must not make it hang
    const up = await cli('up', '--yes', '--skip-preview', '--logflow', '--logtostderr');
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as Exported;
    const refresh = await cli('refresh', '--yes', '--skip-preview', '--expect-no-changes');
    const destroy = await cli('destroy', '--yes');
    const afterDestroy = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

    expectOk(up);
    const all = exported.deployment.resources ?? [];
    expect(all).toHaveLength(9);
    expect(all[0]).toMatchObject({ type: 'pulumi:pulumi:Stack' });
    expect(all[0]!.parent).toBeUndefined();
    const byName = Object.fromEntries(all.slice(1).map((r) => [r.urn.slice(r.urn.lastIndexOf('::') + 2), r]));
    for (const deps of Object.values(byName['child-a']!.propertyDependencies ?? {})) expect(deps).toEqual([]);
    expect(byName['child-b']!.dependencies).toEqual([byName.a!.urn]);
    expect(byName['child-b']!.propertyDependencies?.echo).toEqual([byName.a!.urn]);
    expect([...byName['child-c']!.dependencies!].sort()).toEqual([byName.a!.urn, byName['child-a']!.urn].sort());
    expect([...byName['child-c']!.propertyDependencies!.echo!].sort()).toEqual([byName.a!.urn, byName['child-a']!.urn].sort());
    for (const n of ['a', 'b', 'c']) {
      expect(byName[n]!.outputs?.secret, `${n}.secret`).toMatchObject({ '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270' });
    }
    expectOk(refresh);
    expectOk(destroy);
    expect(afterDestroy.deployment.resources ?? []).toEqual([]);
  }, 180_000);

  it.each([
    [
      'construct_component_failures',
      "error: testcomponent:index:Component resource 'component' has a problem: failing for a reason\n    \t\t- property foo with value '{bar}' has a problem: the failure reason",
    ],
    ['call_component_failures', "error: call to function 'testcomponent:index:Component/getMessage' failed:\n    \t\t- property foo has a problem: the failure reason"],
    ['construct_component_methods_errors', 'the failure reason (the failure property)'],
    ['construct_component_error_apply', 'intentional error from within an apply'],
  ])('%s fails the update with the component’s message', async (dir, expected) => {
    const sandbox = new CliSandbox();
    const cli = project(sandbox, dir);
    expectOk(await cli('login', '--local'));
    expectOk(await cli('stack', 'init', 'dev'));

    const up = await cli('up', '--yes', '--skip-preview');

    expect(up.status).not.toBe(0);
    expect(up.stdout + up.stderr).toContain(expected);
  }, 120_000);
});
