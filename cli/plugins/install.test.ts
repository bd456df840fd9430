import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platform, startPluginServer, testprovArchive } from '../../test/support/plugin-server.js';
import { listInstalledPlugins } from './cache.js';
import { installPlugin } from './install.js';

const SPEC = { kind: 'resource', name: 'testprov', version: '1.0.0' } as const;

async function setup() {
  const home = mkdtempSync(join(tmpdir(), 'stackyard-install-'));
  const archive = join(home, 'testprov.tar.gz');
  writeFileSync(archive, await testprovArchive());
  return { home, archive, env: { PULUMI_HOME: home, PATH: process.env.PATH }, dir: join(home, 'plugins', 'resource-testprov-v1.0.0') };
}

describe('installPlugin', () => {
  it('repairs a folder that an interrupted install left with a .partial marker', async () => {
    const { env, archive, dir } = await setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'half-written'), '');
    writeFileSync(`${dir}.partial`, '');
    expect(listInstalledPlugins(env)).toEqual([]);

    const result = await installPlugin(SPEC, { from: 'file', path: archive }, { env });

    expect(result.installed).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['provider.cjs', 'pulumi-resource-testprov', 'world.cjs']);
    expect(existsSync(`${dir}.partial`)).toBe(false);
    expect(listInstalledPlugins(env).map((p) => p.version)).toEqual(['1.0.0']);
  });

  it('waits while another process (such as pulumi) holds the flock on <folder>.lock, then installs', async () => {
    const { env, archive, dir } = await setup();
    mkdirSync(join(dir, '..'), { recursive: true });
    const holder = spawn('flock', ['--exclusive', `${dir}.lock`, 'sh', '-c', 'echo held; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    let settled = false;

    const install = installPlugin(SPEC, { from: 'file', path: archive }, { env }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 1_000));
    const whileHeld = { settled, installed: existsSync(dir) };
    holder.stdin.end();
    const result = await install;

    expect(whileHeld).toEqual({ settled: false, installed: false });
    expect(result.installed).toBe(true);
    expect(existsSync(join(dir, 'pulumi-resource-testprov'))).toBe(true);
  });

  it('does nothing when the plugin is already installed, unless asked to reinstall', async () => {
    const { env, archive, dir } = await setup();
    await installPlugin(SPEC, { from: 'file', path: archive }, { env });
    writeFileSync(join(dir, 'marker'), '');

    const again = await installPlugin(SPEC, { from: 'file', path: archive }, { env });
    const markerKept = existsSync(join(dir, 'marker'));
    const reinstalled = await installPlugin(SPEC, { from: 'file', path: archive }, { env, reinstall: true });

    expect(again.installed).toBe(false);
    expect(markerKept).toBe(true);
    expect(reinstalled.installed).toBe(true);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
  });

  it('says why a download failed in one sentence, ended by one period before the command that fixes it', async () => {
    const { env } = await setup();
    const server = await startPluginServer();
    const url = `${server.url}/missing/pulumi-resource-testprov-v1.0.0-${platform()}.tar.gz`;
    const overrides = { PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api.github.com/pulumi/pulumi-testprov=${server.url}/missing` };

    const failure = await installPlugin(SPEC, { from: 'download' }, { env: { ...env, ...overrides } }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    await server.close();

    expect(failure?.message).toBe(
      `could not install resource plugin testprov-1.0.0 from ${url}: 404 HTTP error fetching plugin from ${url}. ` +
        'Retry with `stackyard plugin install resource testprov v1.0.0`, or install it offline with ' +
        '`stackyard plugin install resource testprov v1.0.0 --file <pulumi-resource-testprov-…tar.gz>`',
    );
  });
});
