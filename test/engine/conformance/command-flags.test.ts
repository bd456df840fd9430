/**
 * Flags of `stack`, `config` and `state` that no other suite exercised, through the bundled CLI on `--local`
 * (needs `npm run build`), each checked against what the `pulumi` flag does.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CliSandbox, removeSandboxes } from '../../cli/cli-harness.js';

const STACK_URN = 'urn:pulumi:dev::demo::pulumi:pulumi:Stack::demo-dev';
const THING_URN = 'urn:pulumi:dev::demo::t:index:Thing::thing';

/** A state with the stack, a provider and one protected resource. */
function deployment() {
  const provider = 'urn:pulumi:dev::demo::pulumi:providers:t::default';
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
      resources: [
        { urn: STACK_URN, custom: false, type: 'pulumi:pulumi:Stack' },
        { urn: provider, custom: true, id: 'prov-1', type: 'pulumi:providers:t' },
        { urn: THING_URN, custom: true, id: 'thing-1', type: 't:index:Thing', parent: STACK_URN, provider: `${provider}::prov-1`, protect: true },
      ],
    },
  };
}

describe('stack, config and state flags (--local)', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(async () => {
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    writeFileSync(join(sandbox.root, 'state.json'), JSON.stringify(deployment()));
    await sandbox.run(sandbox.root, ['login', '--local']);
    await cli('stack', 'init', 'dev');
    await cli('stack', 'import', '--file', join(sandbox.root, 'state.json'));
    await cli('stack', 'import', '--file', join(sandbox.root, 'state.json'));
  });
  afterAll(removeSandboxes);

  it('stack --show-name prints only the name; --show-ids adds an ID column; --show-urns lists each URN', async () => {
    const name = await cli('stack', '--show-name');
    const ids = await cli('stack', '--show-ids');
    const urns = await cli('stack', '--show-urns');

    expect(name.stdout).toBe('dev\n');
    expect(ids.stdout).toMatch(/TYPE +NAME +ID/);
    expect(ids.stdout).toMatch(/t:index:Thing +thing +thing-1/);
    expect(urns.stdout).toContain(`URN: ${THING_URN}`);
    expect(urns.stdout).not.toContain('thing-1');
  });

  it('stack history --page-size and --page page through versions, newest first; --full-dates prints dates', async () => {
    const first = JSON.parse((await cli('stack', 'history', '--json', '--page-size', '1')).stdout) as { version: number }[];
    const second = JSON.parse((await cli('stack', 'history', '--json', '--page-size', '1', '--page', '2')).stdout) as { version: number }[];
    const dated = await cli('stack', 'history', '--full-dates');

    expect(first.map((u) => u.version)).toEqual([2]);
    expect(second.map((u) => u.version)).toEqual([1]);
    expect(dated.stdout).toMatch(/Updated \d{4}-\d\d-\d\d/);
  });

  it('config set --type stores a typed value and --plaintext a string', async () => {
    await cli('config', 'set', 'port', '8080', '--type', 'int');
    await cli('config', 'set', 'label', 'true', '--plaintext');

    const config = parseYaml(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, unknown> };
    expect(config.config).toEqual({ 'demo:port': 8080, 'demo:label': 'true' });
  });

  it('--non-interactive: a command that would ask needs --yes, and says so', async () => {
    const refused = await cli('state', 'delete', '--all', '--force', '--non-interactive');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--yes');
  });

  it('state unprotect --all, then state delete --all empties the state', async () => {
    const unprotected = await cli('state', 'unprotect', '--all');
    const deleted = await cli('state', 'delete', '--all', '--yes');
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as { deployment: { resources?: { protect?: boolean }[] } };

    expect(unprotected.stdout).toBe('All resources unprotected\n');
    expect(deleted.stdout).toBe('Resources deleted\n');
    expect(exported.deployment.resources ?? []).toEqual([]);
  });

  it('stack init --no-select leaves the selection; stack select --create creates and selects', async () => {
    await cli('stack', 'init', 'other', '--no-select');
    const kept = await cli('stack', '--show-name');
    const created = await cli('stack', 'select', 'third', '--create');
    const selected = await cli('stack', '--show-name');
    await cli('stack', 'select', 'dev');

    expect(kept.stdout).toBe('dev\n');
    expect(created.status, created.stderr).toBe(0);
    expect(selected.stdout).toBe('third\n');
  });

  it('stack ls --all, --project (outside a project), --organization and --tag filter as pulumi does', async () => {
    const names = (text: string) => (JSON.parse(text) as { name: string }[]).map((s) => s.name).sort();
    const every = ['organization/demo/dev', 'organization/demo/other', 'organization/demo/third'];

    const all = await sandbox.run(sandbox.root, ['stack', 'ls', '--all', '--json']);
    const byProject = await sandbox.run(sandbox.root, ['stack', 'ls', '--project', 'demo', '--json']);
    const byOrg = await cli('stack', 'ls', '--organization', 'organization', '--json');
    await cli('stack', 'tag', 'set', 'team', 'blue', '-s', 'other');
    const byTag = await cli('stack', 'ls', '--tag', 'team=blue', '--json');

    expect(names(all.stdout)).toEqual(every);
    expect(names(byProject.stdout)).toEqual(every);
    expect(names(byOrg.stdout)).toEqual(['dev', 'other', 'third']);
    expect(names(byTag.stdout)).toEqual(['other']);
  });

  it('stack rm --preserve-config keeps Pulumi.<stack>.yaml', async () => {
    const removed = await cli('stack', 'rm', 'dev', '--yes', '--preserve-config');

    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(join(project, 'Pulumi.dev.yaml'))).toBe(true);
  });
});
