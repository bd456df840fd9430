/**
 * `stackyard policy …` against a real `stackyard serve` (local storage): a pack published from its folder, enabled
 * with a config file for the default policy group, listed, then removed.
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
  sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken });
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
});
