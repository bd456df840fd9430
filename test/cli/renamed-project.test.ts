/**
 * After `stack rename` into another project, commands run in the old project's folder say that the project name in
 * Pulumi.yaml no longer matches the stack, and how to follow it (bundled CLI on `login --local`; needs `npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

afterAll(() => removeSandboxes());

describe('a stack renamed into another project', () => {
  it('is named with the project it moved to, and Pulumi.yaml\'s name as what to change', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await cli('login', '--local');
    await cli('stack', 'init', 'dev');
    const renamed = await cli('stack', 'rename', 'organization/other/dev');
    expect(renamed.status, renamed.stderr).toBe(0);

    const results = [await cli('stack', 'output', '-s', 'dev'), await cli('config', 'get', 'x', '-s', 'dev'), await cli('preview', '-s', 'dev')];

    for (const result of results) {
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("Pulumi.yaml names project 'demo', and stack 'dev' exists in project 'other'");
      expect(result.stderr).toContain('set `name: other` in Pulumi.yaml');
    }
  });

  it('still suggests stack init when no project has a stack of that name', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('lonely', 'name: lonely\nruntime: nodejs\n');
    await sandbox.run(project, ['login', '--local']);

    const result = await sandbox.run(project, ['stack', 'output', '-s', 'nope']);

    expect(result.stderr).toContain("no stack named 'nope' found");
    expect(result.stderr).toContain('stackyard stack init nope');
  });
});
