/**
 * `stackyard policy …` against a real `stackyard serve` (local storage): a pack published from its folder, enabled
 * with a config file for the default policy group, listed, then removed; and a required pack run by `stackyard up`
 * with no flag, the update recorded as succeeded because its events show the pack's analysis.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, REPO, removeSandboxes } from '../cli/cli-harness.js';
import { publishablePackDir } from './pack-tarball.js';

let serve: ServeProcess;
let sandbox: CliSandbox;

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
  // npm_config_offline: the required pack's `npm install` resolves its file: dependencies and never reaches a registry
  sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken, npm_config_offline: 'true' });
}, 60_000);
afterAll(async () => {
  await serve?.stop();
  removeSandboxes();
});

describe('policy commands through serve', () => {
  it('publish, enable with config, ls, group ls, rm', async () => {
    const pack = publishablePackDir();
    symlinkSync(join(REPO, 'node_modules'), join(pack, 'node_modules'), 'dir');
    const config = join(sandbox.root, 'group-config.json');
    writeFileSync(config, JSON.stringify({ 'no-forbidden-names': { prefix: 'hel', enforcementLevel: 'mandatory' } }));

    const org = await sandbox.run(sandbox.root, ['org', 'create', 'acme']);
    const published = await sandbox.run(pack, ['policy', 'publish', 'acme']);
    const enabled = await sandbox.run(sandbox.root, ['policy', 'enable', 'acme/publishable', 'latest', '--config', config]);
    const listed = await sandbox.run(sandbox.root, ['policy', 'ls', 'acme', '--json']);
    const groups = await sandbox.run(sandbox.root, ['policy', 'group', 'ls', 'acme', '--json']);
    const disabled = await sandbox.run(sandbox.root, ['policy', 'disable', 'acme/publishable']);
    const removed = await sandbox.run(sandbox.root, ['policy', 'rm', 'acme/publishable', 'all', '--yes']);
    const after = await sandbox.run(sandbox.root, ['policy', 'ls', 'acme', '--json']);

    expect([org.status, published.status, enabled.status], `${org.stderr}${published.stderr}${enabled.stderr}`).toEqual([0, 0, 0]);
    expect(published.stdout).toContain('Publishing "publishable" - version 0.0.1 to "acme"');
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'publishable', versions: ['0.0.1'] }]);
    expect(JSON.parse(groups.stdout)).toEqual([{ name: 'default-policy-group', default: true, numPolicyPacks: 1, numStacks: 0 }]);
    expect([disabled.status, removed.status], `${disabled.stderr}${removed.stderr}`).toEqual([0, 0]);
    expect(JSON.parse(after.stdout)).toEqual([]);
  }, 240_000);

  it('an up of a stack whose group requires the pack runs it with no flag, and the service records it as succeeded', async () => {
    const pack = publishablePackDir();
    symlinkSync(join(REPO, 'node_modules'), join(pack, 'node_modules'), 'dir');
    const config = join(sandbox.root, 'strict-config.json');
    writeFileSync(config, JSON.stringify({ 'no-forbidden-names': { prefix: 'forbidden', enforcementLevel: 'mandatory' } }));
    const app = sandbox.project('app', 'name: app\nruntime: nodejs\n', { 'index.js': '' });
    expect((await sandbox.run(pack, ['policy', 'publish', 'acme'])).status).toBe(0);
    expect((await sandbox.run(sandbox.root, ['policy', 'enable', 'acme/publishable', 'latest', '--config', config])).status).toBe(0);
    expect((await sandbox.run(app, ['stack', 'init', 'acme/dev'])).status).toBe(0);

    const up = await sandbox.run(app, ['up', '--yes']);
    const history = await sandbox.run(app, ['stack', 'history', '--json']);

    expect(up.status, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain('✅ publishable@v0.0.1');
    expect(JSON.parse(history.stdout)).toMatchObject([{ version: 1, result: 'succeeded' }]);
    expect(JSON.parse(history.stdout)[0].endReason).toBeUndefined();
  }, 240_000);
});
