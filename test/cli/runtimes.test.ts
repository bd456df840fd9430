/**
 * Runtimes other than Node.js need Pulumi's language plugins: a missing one is reported with where it comes from and
 * the install line, and a misspelled runtime is refused at `stack init` (bundled CLI on `login --local`; needs
 * `npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

afterAll(() => removeSandboxes());

describe('language runtimes', () => {
  it('says which plugin a yaml program needs, that the pulumi CLI ships it, and the plugin install line', async () => {
    const sandbox = new CliSandbox({ PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true' });
    const project = sandbox.project('yamlprog', 'name: yamlprog\nruntime: yaml\n');
    await sandbox.run(project, ['login', '--local']);
    await sandbox.run(project, ['stack', 'init', 'dev']);

    const preview = await sandbox.run(project, ['preview']);
    const output = preview.stdout + preview.stderr;

    expect(preview.status).toBe(1);
    expect(output).toContain("runtime 'yaml' needs the language plugin pulumi-language-yaml");
    expect(output).toContain('The `pulumi` CLI ships it: putting its folder on PATH is enough');
    expect(output).toContain('`stackyard plugin install language yaml <version>`');
    expect(output).not.toContain('..');
  });

  it('refuses a misspelled runtime at stack init, listing the known ones, and creates no stack', async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('typo', 'name: typo\nruntime: nodjs\n');
    await sandbox.run(project, ['login', '--local']);

    const init = await sandbox.run(project, ['stack', 'init', 'dev']);
    const listed = await sandbox.run(project, ['stack', 'ls', '--json']);

    expect(init.status).toBe(1);
    expect(init.stderr).toContain("unknown runtime 'nodjs'");
    expect(init.stderr).toContain('Use one of nodejs, python, go, dotnet, java, yaml');
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});
