/**
 * Programs in runtimes other than nodejs run through their language plugin over the LanguageRuntime protocol
 * (needs `npm run build`). The plugin is our Node test plugin `pulumi-language-yaml` (test/fixtures/languages/yaml),
 * installed from a loopback release server like any plugin; it names the program's packages, so the provider is
 * acquired before the first step, and registers resources through the monitor it is given.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes, type CliResult } from './cli-harness.js';
import { platform, startPluginServer, testLanguageArchive, testprovArchive, type PluginServer } from '../support/plugin-server.js';

interface Exported {
  deployment: { resources?: { urn: string; type: string; outputs?: Record<string, unknown> }[] };
}

const PROGRAM = `name: yamlprog
runtime: yaml
resources:
  first:
    type: testprov:index:Thing
    properties:
      value: 41
    options:
      version: 1.0.0
  second:
    type: testprov:index:Thing
    properties:
      value: 42
    options:
      version: 1.0.0
outputs:
  firstValue: \${first.value}
  madeBy: \${second.createdBy}
`;

function expectOk(r: CliResult): void {
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
}

describe('language plugins', () => {
  let server: PluginServer;

  beforeAll(async () => {
    server = await startPluginServer();
    server.serve(`/releases/pulumi-resource-testprov-v1.0.0-${platform()}.tar.gz`, await testprovArchive());
    server.serve(`/lang/pulumi-language-yaml-v0.1.0-${platform()}.tar.gz`, await testLanguageArchive());
  });
  afterAll(async () => {
    await server.close();
    removeSandboxes();
  });

  it('runs a yaml program through pulumi-language-yaml for preview, up and destroy, acquiring its provider first', async () => {
    const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/releases` });
    const dir = sandbox.project('yamlprog', PROGRAM);
    const cli = (...args: string[]) => sandbox.run(dir, args);
    expectOk(await cli('plugin', 'install', 'language', 'yaml', '0.1.0', '--server', `${server.url}/lang`));
    expectOk(await cli('login', '--local'));
    expectOk(await cli('stack', 'init', 'dev'));

    const preview = await cli('preview');
    const up = await cli('up', '--yes');
    const outputs = await cli('stack', 'output', '--json');
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as Exported;
    const about = await cli('about', '--json');
    const projectPlugins = await cli('plugin', 'ls', '--project', '--json');
    const destroy = await cli('destroy', '--yes');
    const afterDestroy = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

    expectOk(preview);
    expect(preview.stderr).toContain('Downloading resource plugin testprov-1.0.0');
    expect(preview.stdout).toMatch(/\+ +testprov:index:Thing +first +create/);
    expectOk(up);
    expect(up.stderr).not.toContain('Downloading');
    expect(JSON.parse(outputs.stdout)).toEqual({ firstValue: 41, madeBy: 'testprov' });
    expect(exported.deployment.resources!.map((r) => r.type).sort()).toEqual(['pulumi:providers:testprov', 'pulumi:pulumi:Stack', 'testprov:index:Thing', 'testprov:index:Thing']);
    expect(exported.deployment.resources!.find((r) => r.urn.endsWith('::second'))?.outputs).toMatchObject({ value: 42, createdBy: 'testprov' });
    expectOk(about);
    expect(JSON.parse(about.stdout)).toMatchObject({
      plugins: [
        { kind: 'resource', name: 'testprov', version: '1.0.0' },
        { kind: 'language', name: 'yaml', version: '0.1.0' },
      ],
      runtime: { language: 'yaml', version: '0.1.0' },
      currentStack: { name: 'dev', fullyQualifiedName: 'organization/yamlprog/dev', pendingOps: [] },
      backend: { name: 'local' },
      errors: [],
    });
    expect((JSON.parse(about.stdout) as { currentStack: { resources: unknown[] } }).currentStack.resources).toHaveLength(4);
    expect((JSON.parse(projectPlugins.stdout) as { name: string; kind: string }[]).map((p) => `${p.kind} ${p.name}`).sort()).toEqual(['language yaml', 'resource testprov']);
    expectOk(destroy);
    expect(afterDestroy.deployment.resources ?? []).toEqual([]);
    expect(existsSync(join(sandbox.home, '.pulumi/plugins/language-yaml-v0.1.0.lastused'))).toBe(true);
  }, 180_000);

  it('stackyard install asks the language plugin to install dependencies, then installs the program\'s plugins', async () => {
    const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/releases` });
    const dir = sandbox.project('installprog', PROGRAM.replace('name: yamlprog', 'name: installprog'));
    const cli = (...args: string[]) => sandbox.run(dir, args);
    expectOk(await cli('plugin', 'install', 'language', 'yaml', '0.1.0', '--server', `${server.url}/lang`));

    const installed = await cli('install');
    const again = await cli('install', '--no-dependencies');
    const listed = JSON.parse((await cli('plugin', 'ls', '--json')).stdout) as { name: string; kind: string }[];

    expectOk(installed);
    expect(installed.stdout).toContain('nothing to install for the test language');
    expect(installed.stderr).toContain('[resource plugin testprov-1.0.0] installing');
    expectOk(again);
    expect(again.stdout).not.toContain('nothing to install');
    expect(again.stderr).not.toContain('installing');
    expect(listed.map((p) => `${p.kind} ${p.name}`).sort()).toEqual(['language yaml', 'resource testprov']);
  }, 120_000);

  it('plugin ls --project asks the language plugin without marking it as used', async () => {
    const sandbox = new CliSandbox();
    const dir = sandbox.project('lsprog', PROGRAM.replace('name: yamlprog', 'name: lsprog'));
    const cli = (...args: string[]) => sandbox.run(dir, args);
    expectOk(await cli('plugin', 'install', 'language', 'yaml', '0.1.0', '--server', `${server.url}/lang`));
    const lastUsed = async () =>
      (JSON.parse((await cli('plugin', 'ls', '--json')).stdout) as { kind: string; lastUsedTime?: string }[]).find((p) => p.kind === 'language')
        ?.lastUsedTime;
    const before = await lastUsed();

    const listed = await cli('plugin', 'ls', '--project');

    expectOk(listed);
    expect(listed.stdout).toContain('yaml');
    expect(await lastUsed()).toBe(before);
  }, 120_000);

  it('fails clearly, naming the install command, when the language plugin is missing', async () => {
    const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://=${server.url}/nothing` });
    const dir = sandbox.project('nolang', PROGRAM.replace('name: yamlprog', 'name: nolang'));
    const cli = (...args: string[]) => sandbox.run(dir, args);
    expectOk(await cli('login', '--local'));
    expectOk(await cli('stack', 'init', 'dev'));

    const up = await cli('up', '--yes');

    expect(up.status).not.toBe(0);
    const shown = up.stdout + up.stderr;
    expect(shown).toContain('language plugin yaml');
    expect(shown).toContain('stackyard plugin install language yaml');
    expect(shown).not.toContain('This is a bug');
  }, 120_000);
});
