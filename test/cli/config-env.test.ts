/**
 * `stackyard config env add|rm|ls`, as `pulumi config env` edits a stack's import list (`environment:` in
 * `Pulumi.<stack>.yaml`), on `login --local` (needs `npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

describe('stackyard config env', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const stackFile = () => readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');

  beforeAll(async () => {
    project = sandbox.project('envs', 'name: envs\nruntime: nodejs\n');
    expect((await cli('login', '--local')).status).toBe(0);
    expect((await cli('stack', 'init', 'dev')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), '# kept\nconfig:\n  envs:a: 1\n');
  });

  afterAll(() => removeSandboxes());

  it('adds to the end of the import list, lists it, and removes the last occurrence of a name', async () => {
    const empty = await cli('config', 'env', 'ls');
    const added = await cli('config', 'env', 'add', 'shared/base', 'prod', '--yes');
    const again = await cli('config', 'env', 'add', 'shared/base', '-y');
    const listed = await cli('config', 'env', 'list', '--json');
    const removed = await cli('config', 'env', 'rm', 'shared/base', '--yes');
    const table = await cli('config', 'env', 'ls');
    const output = await cli('config', 'env', 'ls', '--output', 'json');

    expect(empty.stdout).toBe('This stack configuration has no environments listed. Try adding one with `stackyard config env add <projectName>/<envName>`.\n');
    expect(added.status, added.stderr).toBe(0);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(['shared/base', 'prod', 'shared/base']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(table.stdout).toBe('ENVIRONMENTS\nshared/base\nprod\n');
    expect(JSON.parse(output.stdout)).toEqual(['shared/base', 'prod']);
    expect(stackFile()).toBe('# kept\nconfig:\n  envs:a: 1\nenvironment:\n  - shared/base\n  - prod\n');
  });

  it('saves nothing without --yes when it cannot ask', async () => {
    const before = stackFile();

    const refused = await cli('config', 'env', 'add', 'other');
    const removed = await cli('config', 'env', 'delete', 'prod');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--yes must be passed in to proceed when running in non-interactive mode');
    expect(removed.status).toBe(1);
    expect(stackFile()).toBe(before);
  });
});
