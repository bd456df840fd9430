/**
 * Plugin acquisition through the bundled CLI (needs `npm run build`): a loopback release server serves the Node test
 * provider packed at test time in Pulumi's archive layout; `up` installs what is missing, `plugin ls|install|rm`
 * manage the cache, and every failure leaves no plugin folder behind.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes, type CliResult } from './cli-harness.js';
import { platform, startPluginServer, testprovArchive, testprovPluginDir, type PluginServer } from '../support/plugin-server.js';

const ARCHIVE = `pulumi-resource-testprov-v1.0.0-${platform()}.tar.gz`;

interface Exported {
  deployment: { resources?: { urn: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] };
}

/**
 * A Node.js project whose node_modules holds @pulumi/pulumi (linked) and, when `declarePackage`, a `@pulumi/testprov`
 * package that declares its resource plugin (`"pulumi": {"resource": true}`), as a provider SDK does.
 */
function nodeProject(sandbox: CliSandbox, name: string, program: string, declarePackage: boolean): string {
  const dir = join(sandbox.root, name);
  mkdirSync(join(dir, 'node_modules', '@pulumi'), { recursive: true });
  writeFileSync(join(dir, 'Pulumi.yaml'), `name: ${name}\nruntime: nodejs\n`);
  writeFileSync(join(dir, 'index.js'), program);
  symlinkSync(join(REPO, 'node_modules/@pulumi/pulumi'), join(dir, 'node_modules/@pulumi/pulumi'), 'dir');
  if (declarePackage) {
    mkdirSync(join(dir, 'node_modules/@pulumi/testprov'));
    writeFileSync(join(dir, 'node_modules/@pulumi/testprov/package.json'), JSON.stringify({ name: '@pulumi/testprov', version: '1.0.0', pulumi: { resource: true } }));
  }
  return dir;
}

const THING = (opts: string) =>
  `const pulumi = require('@pulumi/pulumi');\nconst t = new pulumi.CustomResource('testprov:index:Thing', 't', { value: 1, createdBy: undefined }, ${opts});\nmodule.exports = { createdBy: t.createdBy };\n`;

function pluginsDir(sandbox: CliSandbox): string {
  return join(sandbox.home, '.pulumi', 'plugins');
}

/** Plugin folders in the cache (ignoring lock files and the staging folder). */
function pluginFolders(sandbox: CliSandbox): string[] {
  const dir = pluginsDir(sandbox);
  return existsSync(dir) ? readdirSync(dir).filter((e) => /^[a-z]+-.*-v[^/]*$/.test(e) && !/\.(lock|partial|lastused)$/.test(e)) : [];
}

function stagingLeftovers(sandbox: CliSandbox): string[] {
  const dir = join(pluginsDir(sandbox), '.stackyard-staging');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function archiveRequests(server: PluginServer): string[] {
  return server.requests.filter((r) => r.endsWith('.tar.gz'));
}

function expectOk(r: CliResult): void {
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
}

describe('plugin acquisition', () => {
  let server: PluginServer;
  let archive: Buffer;

  beforeAll(async () => {
    archive = await testprovArchive();
    server = await startPluginServer();
    server.serve(`/releases/${ARCHIVE}`, archive);
    server.serve(`/dl/${ARCHIVE}`, archive);
    server.serve(`/corrupt/${ARCHIVE}`, Buffer.concat([archive.subarray(0, 40), Buffer.from('this is not the rest of a tarball')]));
  });
  afterAll(async () => {
    await server.close();
    removeSandboxes();
  });

  async function stackIn(sandbox: CliSandbox, dir: string, env: NodeJS.ProcessEnv = {}) {
    const cli = (...args: string[]) => sandbox.run(dir, args, { env });
    expectOk(await cli('login', '--local'));
    expectOk(await cli('stack', 'init', 'dev'));
    return cli;
  }

  it('installs a missing provider through PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES exactly once, and a second up downloads nothing', async () => {
    const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/releases` });
    const dir = nodeProject(sandbox, 'override', THING("{ version: '1.0.0' }"), true);
    const cli = await stackIn(sandbox, dir);
    const before = archiveRequests(server).length;

    const first = await cli('up', '--yes');
    const afterFirst = archiveRequests(server).length;
    const second = await cli('up', '--yes');
    const outputs = await cli('stack', 'output', '--json');
    const about = await cli('about', '--json');

    expectOk(first);
    expect(afterFirst - before).toBe(1);
    expect(first.stderr).toContain(`Downloading resource plugin testprov-1.0.0 from ${server.url}/releases/${ARCHIVE}`);
    expect(first.stderr).toMatch(/Installed resource plugin testprov-1\.0\.0 \(/);
    expectOk(second);
    expect(archiveRequests(server).length).toBe(afterFirst);
    expect(second.stderr).not.toContain('Downloading');
    expect(JSON.parse(outputs.stdout)).toMatchObject({ createdBy: 'testprov' });
    expect(pluginFolders(sandbox)).toEqual(['resource-testprov-v1.0.0']);
    expect(existsSync(join(pluginsDir(sandbox), 'resource-testprov-v1.0.0.partial'))).toBe(false);
    expectOk(about);
    expect(JSON.parse(about.stdout)).toMatchObject({
      plugins: [{ kind: 'language', name: 'nodejs' }, { kind: 'resource', name: 'testprov', version: '1.0.0' }],
      cliAbout: { nodeVersion: process.version },
      runtime: { language: 'nodejs', executable: process.execPath },
      currentStack: { name: 'dev' },
      errors: [],
    });
  }, 120_000);

  it('installs a provider from its pluginDownloadURL resource option exactly once and records the URL in state', async () => {
    const sandbox = new CliSandbox();
    const url = `${server.url}/dl`;
    const dir = nodeProject(sandbox, 'option', THING(`{ version: '1.0.0', pluginDownloadURL: '${url}' }`), false);
    const cli = await stackIn(sandbox, dir);
    const before = archiveRequests(server).length;

    const up = await cli('up', '--yes');
    const exported = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

    expectOk(up);
    expect(archiveRequests(server).slice(before)).toEqual([`/dl/${ARCHIVE}`]);
    const provider = exported.deployment.resources!.find((r) => r.type === 'pulumi:providers:testprov')!;
    expect(provider.urn).toMatch(/::default_1_0_0_http_\/127\.0\.0\.1_\d+\/dl$/);
    expect(provider.inputs).toMatchObject({ version: '1.0.0', __internal: { pluginDownloadURL: url } });
    expect(exported.deployment.resources!.find((r) => r.type === 'testprov:index:Thing')?.outputs).toMatchObject({ createdBy: 'testprov' });
  }, 120_000);

  it('uses a plugin folder made by hand in Pulumi\'s layout without downloading', async () => {
    const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/releases` });
    testprovPluginDir(join(pluginsDir(sandbox), 'resource-testprov-v1.0.0'));
    const dir = nodeProject(sandbox, 'byhand', THING("{ version: '1.0.0' }"), true);
    const cli = await stackIn(sandbox, dir);
    const before = archiveRequests(server).length;

    const up = await cli('up', '--yes');

    expectOk(up);
    expect(archiveRequests(server).length).toBe(before);
    expect(up.stderr).not.toContain('Downloading');
    expect(existsSync(join(pluginsDir(sandbox), 'resource-testprov-v1.0.0.lastused'))).toBe(true);
  }, 120_000);

  it('fails an up clearly on a 404 and on a corrupt archive, leaving no plugin folder', async () => {
    for (const path of ['missing', 'corrupt']) {
      const sandbox = new CliSandbox({ PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/${path}` });
      const dir = nodeProject(sandbox, `fail-${path}`, THING("{ version: '1.0.0' }"), true);
      const cli = await stackIn(sandbox, dir);

      const up = await cli('up', '--yes');
      const state = JSON.parse((await cli('stack', 'export')).stdout) as Exported;

      expect(up.status).not.toBe(0);
      const shown = up.stdout + up.stderr;
      expect(shown).toContain(`could not install resource plugin testprov-1.0.0 from ${server.url}/${path}/${ARCHIVE}`);
      expect(shown).toContain(path === 'missing' ? '404 HTTP error' : 'not a valid .tar.gz');
      expect(shown).toContain('stackyard plugin install resource testprov v1.0.0');
      expect(pluginFolders(sandbox)).toEqual([]);
      expect(stagingLeftovers(sandbox)).toEqual([]);
      expect(state.deployment.resources ?? []).toEqual([]);
    }
  }, 180_000);

  it('plugin install, ls and rm manage the cache; --file installs offline; a bad --checksum installs nothing', async () => {
    const sandbox = new CliSandbox();
    const cli = (...args: string[]) => sandbox.run(sandbox.root, args);
    const sha = createHash('sha256').update(archive).digest('hex');
    const archiveFile = join(sandbox.root, ARCHIVE);
    writeFileSync(archiveFile, archive);

    const badChecksum = await cli('plugin', 'install', 'resource', 'testprov', '1.0.0', '--server', `${server.url}/dl`, '--checksum', '00'.repeat(32));
    const foldersAfterBad = pluginFolders(sandbox);
    const installed = await cli('plugin', 'install', 'resource', 'testprov', 'v1.0.0', '--server', `${server.url}/dl`, '--checksum', sha);
    const listed = await cli('plugin', 'ls', '--json');
    const table = await cli('plugin', 'ls');
    const refused = await cli('plugin', 'rm', 'resource', 'testprov');
    const removed = await cli('plugin', 'rm', 'resource', 'testprov', '--yes');
    const listedAfterRm = await cli('plugin', 'ls', '--json');
    const offline = await cli('plugin', 'install', 'resource', 'testprov', '1.0.0', '--file', archiveFile);
    const badKind = await cli('plugin', 'install', 'widget', 'testprov', '1.0.0');

    expect(badChecksum.status).not.toBe(0);
    expect(badChecksum.stderr).toContain(`could not install resource plugin testprov-1.0.0 from ${server.url}/dl/${ARCHIVE}: invalid checksum, expected ${'00'.repeat(32)}, actual ${sha}`);
    expect(foldersAfterBad).toEqual([]);
    expectOk(installed);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'testprov', kind: 'resource', version: '1.0.0' }]);
    expect((JSON.parse(listed.stdout) as { size: number }[])[0]!.size).toBeGreaterThan(0);
    expect(table.stdout).toMatch(/^NAME\s+KIND\s+VERSION\s+SIZE\s+INSTALLED\s+LAST USED\ntestprov\s+resource\s+1\.0\.0\s+\d/);
    expect(table.stdout).toContain('TOTAL plugin cache size: ');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--yes');
    expectOk(removed);
    expect(removed.stdout).toContain('removed: resource testprov-1.0.0');
    expect(JSON.parse(listedAfterRm.stdout)).toEqual([]);
    expectOk(offline);
    expect(pluginFolders(sandbox)).toEqual(['resource-testprov-v1.0.0']);
    expect(badKind.status).not.toBe(0);
    expect(badKind.stderr).toContain('unrecognized plugin kind: widget');
  }, 120_000);

  it('two CLIs installing the same plugin at once both succeed with one download', async () => {
    const sandbox = new CliSandbox();
    const cli = () => sandbox.run(sandbox.root, ['plugin', 'install', 'resource', 'testprov', '1.0.0', '--server', `${server.url}/dl`]);
    const before = archiveRequests(server).length;
    server.delayMs = 1_500;
    let results: CliResult[];
    try {
      results = await Promise.all([cli(), cli()]);
    } finally {
      server.delayMs = 0;
    }

    for (const r of results) expectOk(r);
    for (const r of results) expect(r.stderr).toContain('[resource plugin testprov-1.0.0] installing');
    expect(archiveRequests(server).length - before).toBe(1);
    expect(pluginFolders(sandbox)).toEqual(['resource-testprov-v1.0.0']);
  }, 120_000);
});
