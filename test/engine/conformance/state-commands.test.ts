/**
 * `state protect`, `taint`, `untaint`, `rename` and `move` through the bundled CLI on `--local` (needs
 * `npm run build`), checked against what `pulumi state …` does to the state (pkg/cmd/pulumi/state).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from '../../cli/cli-harness.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';

const urn = (stack: string, type: string, name: string) => `urn:pulumi:${stack}::demo::${type}::${name}`;
const ROOT = urn('dev', 'pulumi:pulumi:Stack', 'demo-dev');
const PROVIDER = urn('dev', 'pulumi:providers:t', 'default');
const COMP = urn('dev', 'my:index:Comp', 'comp');
const CHILD = urn('dev', 'my:index:Comp$t:index:Thing', 'child');
const LONE = urn('dev', 't:index:Thing', 'lone');

interface Resource {
  urn: string;
  type: string;
  id?: string;
  parent?: string;
  provider?: string;
  protect?: boolean;
  taint?: boolean;
  dependencies?: string[];
  outputs?: Record<string, unknown>;
}

/** The root stack, a provider, a component with a child (holding a secret), and a resource depending on the child. */
function deployment(): unknown {
  const provider = `${PROVIDER}::prov-1`;
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
      resources: [
        { urn: ROOT, custom: false, type: 'pulumi:pulumi:Stack' },
        { urn: PROVIDER, custom: true, id: 'prov-1', type: 'pulumi:providers:t', inputs: { region: 'x' } },
        { urn: COMP, custom: false, type: 'my:index:Comp', parent: ROOT },
        { urn: CHILD, custom: true, id: 'child-1', type: 't:index:Thing', parent: COMP, provider, outputs: { key: { [SIG]: SECRET, plaintext: '"s3cret"' } } },
        { urn: LONE, custom: true, id: 'lone-1', type: 't:index:Thing', parent: ROOT, provider, dependencies: [CHILD] },
      ],
    },
  };
}

describe('state commands (--local)', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const resources = async (stack = 'dev') => (JSON.parse((await cli('stack', 'export', '-s', stack)).stdout) as { deployment: { resources?: Resource[] } }).deployment.resources ?? [];
  const find = (list: Resource[], u: string) => list.find((r) => r.urn === u)!;

  beforeAll(async () => {
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    writeFileSync(join(sandbox.root, 'state.json'), JSON.stringify(deployment()));
    await sandbox.run(sandbox.root, ['login', '--local']);
    await cli('stack', 'init', 'prod');
    await cli('stack', 'init', 'dev');
    await cli('stack', 'import', '--file', join(sandbox.root, 'state.json'));
  });
  afterAll(removeSandboxes);

  it('state protect <urn> and --all set protect; an unknown URN changes nothing', async () => {
    const unknown = await cli('state', 'protect', urn('dev', 't:index:Thing', 'nope'));
    const one = await cli('state', 'protect', LONE);
    const afterOne = await resources();
    const all = await cli('state', 'protect', '--all');
    const afterAll = await resources();

    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No such resource');
    expect(one.stdout).toBe('1 resources protected\n');
    expect(afterOne.filter((r) => r.protect).map((r) => r.urn)).toEqual([LONE]);
    expect(all.stdout).toBe('All resources protected\n');
    expect(afterAll.every((r) => r.protect)).toBe(true);
    await cli('state', 'unprotect', '--all');
  });

  it('state taint marks resources for replacement (taint: true); state untaint --all clears it', async () => {
    const tainted = await cli('state', 'taint', CHILD, LONE);
    const afterTaint = await resources();
    const untainted = await cli('state', 'untaint', '--all');
    const afterUntaint = await resources();

    expect(tainted.status, tainted.stderr).toBe(0);
    expect(tainted.stdout).toBe('2 resources tainted\n');
    expect(afterTaint.filter((r) => r.taint).map((r) => r.urn).sort()).toEqual([CHILD, LONE].sort());
    expect(untainted.stdout).toBe('All resources untainted\n');
    expect(afterUntaint.some((r) => r.taint)).toBe(false);
  });

  it('state rename changes the name in the URN and every reference to it, providers included', async () => {
    const renamed = await cli('state', 'rename', CHILD, 'kid');
    const renamedProvider = await cli('state', 'rename', PROVIDER, 'main');
    const after = await resources();
    const kid = urn('dev', 'my:index:Comp$t:index:Thing', 'kid');
    const main = urn('dev', 'pulumi:providers:t', 'main');

    expect(renamed.stdout).toBe('Resource renamed\n');
    expect(renamedProvider.status, renamedProvider.stderr).toBe(0);
    expect(find(after, LONE).dependencies).toEqual([kid]);
    expect(find(after, kid).provider).toBe(`${main}::prov-1`);
    expect(find(after, LONE).provider).toBe(`${main}::prov-1`);
    await cli('state', 'rename', kid, 'child');
    await cli('state', 'rename', main, 'default');
  });

  it('state move takes a component and its child to another stack, copying the provider and re-encrypting the secret', async () => {
    const moved = await cli('state', 'move', '--dest', 'prod', COMP, '--yes');
    const source = await resources('dev');
    const dest = await resources('prod');
    const revealed = await cli('stack', 'export', '-s', 'prod', '--show-secrets');

    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`  - ${COMP}\n  - ${CHILD}\n`);
    expect(moved.stdout).toContain(`${LONE} has a dependency on ${CHILD}`);
    expect(moved.stdout).toContain('Successfully moved resources from organization/demo/dev to organization/demo/prod');
    expect(source.map((r) => r.urn)).toEqual([ROOT, PROVIDER, LONE]);
    expect(find(source, LONE).dependencies ?? []).toEqual([]);
    expect(dest.map((r) => r.urn)).toEqual([
      urn('prod', 'pulumi:pulumi:Stack', 'demo-prod'),
      urn('prod', 'pulumi:providers:t', 'default'),
      urn('prod', 'my:index:Comp', 'comp'),
      urn('prod', 'my:index:Comp$t:index:Thing', 'child'),
    ]);
    expect(find(dest, urn('prod', 'my:index:Comp', 'comp')).parent).toBe(urn('prod', 'pulumi:pulumi:Stack', 'demo-prod'));
    expect(find(dest, urn('prod', 'my:index:Comp$t:index:Thing', 'child')).provider).toBe(`${urn('prod', 'pulumi:providers:t', 'default')}::prov-1`);
    expect(JSON.stringify(dest)).not.toContain('s3cret');
    expect(revealed.stdout).toContain('\\"s3cret\\"');
  });

  it('state move --source … --include-parents moves the child back with the component it belongs to', async () => {
    const moved = await cli('state', 'move', '--source', 'prod', '--dest', 'dev', urn('prod', 'my:index:Comp$t:index:Thing', 'child'), '--include-parents', '--yes');
    const source = await resources('prod');
    const dest = await resources('dev');

    expect(moved.status, moved.stderr).toBe(0);
    expect(source.map((r) => r.urn)).toEqual([urn('prod', 'pulumi:pulumi:Stack', 'demo-prod'), urn('prod', 'pulumi:providers:t', 'default')]);
    expect(dest.map((r) => r.urn)).toEqual([ROOT, PROVIDER, LONE, COMP, CHILD]);
    expect(find(dest, CHILD).provider).toBe(`${PROVIDER}::prov-1`);
  });

  it('state move refuses to move a provider, and needs --source or --dest', async () => {
    const provider = await cli('state', 'move', '--dest', 'prod', PROVIDER, '--yes');
    const neither = await cli('state', 'move', LONE, '--yes');

    expect(provider.status).toBe(1);
    expect(provider.stderr).toContain('cannot move providers');
    expect(neither.status).toBe(1);
    expect(neither.stderr).toContain('at least one of --source or --dest must be provided');
  });
});
