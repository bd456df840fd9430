/**
 * `stackyard deployment run --source <dir>` end to end on `stackyard serve --runners 1`: the CLI packs a program
 * folder (without node_modules, .git and what its .gitignore ignores), uploads it through serve, and queues a run
 * whose source is that archive; the runner unpacks it instead of cloning and runs the same steps. Bad input (no such
 * folder, no Pulumi.yaml, too big) uploads and queues nothing, and the archives go with their stack.
 *
 * The program needs no install: `@pulumi/pulumi` comes from this repository's node_modules through NODE_PATH in the
 * stack's deployment settings, and its one helper module is a file of the folder.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, REPO, TESTPROV_DIR } from '../cli/cli-harness.js';
import { E2eService } from './e2e-harness.js';

const STACK = '/api/stacks/admin/srcapp/dev';
const STACK_NAME = 'admin/srcapp/dev';

const PROGRAM = `'use strict';
const fs = require('fs');
const pulumi = require('@pulumi/pulumi');
const { greeting } = require('./lib/greeting');
const packed = ['node_modules', '.git', 'build', 'notes.log'].filter((name) => fs.existsSync(name)).join(',') || 'none';
new pulumi.CustomResource('testprov:index:Thing', 'uploaded', { value: greeting(), leftIn: packed });
`;

function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

describe('deployment run --source <dir> on serve --runners 1', () => {
  let service: E2eService;
  let work: string;
  let world: string;

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service.serve!.url}${path}`, {
      method,
      headers: { authorization: `token ${service.serve!.adminToken}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const cli = (...args: string[]) => service.sandbox.run(work, [...args, '--stack', STACK_NAME]);
  const runs = async () => ((await api('GET', `${STACK}/deployments`)).json as { deployments: { id: string }[] }).deployments;
  const storedArchives = () => {
    const root = join(service.serve!.dataDir, 'deploysources');
    return existsSync(root) ? readdirSync(root).flatMap((stack) => readdirSync(join(root, stack))).sort() : [];
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'stackyard-source-'));
    world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
    const env = { STACKYARD_RUNNER_POLL_MS: '200' };
    service = await E2eService.start({ storage: 'local', args: ['--runners', '1'], env });
    expect((await api('POST', '/api/stacks/admin/srcapp', { stackName: 'dev' })).status).toBe(200);
    const settings = await api('POST', `${STACK}/deployments/settings`, {
      operationContext: { environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world } },
    });
    expect(settings.status, JSON.stringify(settings.json)).toBe(200);
    writeFiles(join(work, 'prog'), {
      'Pulumi.yaml': `name: srcapp\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`,
      'index.js': PROGRAM,
      'lib/greeting.js': "exports.greeting = () => 'hello from an upload';\n",
      '.gitignore': '# build outputs\n/build/\n*.log\n',
      'build/bundle.bin': randomBytes(6_000_000),
      'notes.log': 'left out\n',
      'node_modules/heavy/index.bin': randomBytes(6_000_000),
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(world, { recursive: true, force: true });
    removeSandboxes();
  });

  it('packs the folder, uploads it and runs the update from it: the stack holds its resources, history names the run', async () => {
    const run = await cli('deployment', 'run', 'update', '--source', './prog', '--suppress-stream-logs=false');

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Uploaded \.\/prog \(4 files, \d+ bytes\)\.\nPreparing deployment\.\.\./);
    expect(run.stdout).toMatch(/\$ unpack the uploaded program archive \(\d+ bytes\)/);
    expect(run.stdout).not.toContain('$ git clone');
    expect(run.stdout).toMatch(/\+ +testprov:index:Thing +uploaded +created/);
    const [queued] = await runs();
    const exported = (await api('GET', `${STACK}/export`)).json as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
    const thing = exported.deployment.resources?.find((r) => r.urn.endsWith('::uploaded'));
    expect(thing?.outputs).toMatchObject({ value: 'hello from an upload', leftIn: 'none' });
    const history = await cli('stack', 'history');
    expect(history.stdout).toMatch(/^Version: 1\nUpdateKind: update\nStatus: succeeded/);
    expect(history.stdout).toContain(`    stackyard.deployment.id: ${queued!.id}`);
    expect(storedArchives()).toHaveLength(1);
  }, 150_000);

  it('refuses a missing folder, one without Pulumi.yaml and one packing over 4 MB, uploading and queuing nothing', async () => {
    writeFiles(join(work, 'plain'), { 'index.js': PROGRAM });
    writeFiles(join(work, 'big'), { 'Pulumi.yaml': 'name: srcapp\nruntime: nodejs\n', 'data.bin': randomBytes(4_500_000) });
    const before = { runs: (await runs()).length, archives: storedArchives() };

    const missing = await cli('deployment', 'run', 'update', '--source', './nowhere');
    const plain = await cli('deployment', 'run', 'update', '--source', './plain');
    const big = await cli('deployment', 'run', 'update', '--source', './big');
    const both = await cli('deployment', 'run', 'update', 'https://example.com/repo.git', '--git-branch', 'main', '--source', './prog');

    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('--source ./nowhere: no such folder');
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toContain('--source ./plain has no Pulumi.yaml');
    expect(big.status).not.toBe(0);
    expect(big.stderr).toMatch(/the program archive of \.\/big is over the 4\.0 MB a run's source may be \(2 files\); nothing was uploaded/);
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('--source takes the place of a git source');
    expect((await runs()).length).toBe(before.runs);
    expect(storedArchives()).toEqual(before.archives);
  }, 60_000);

  it('refuses over-size archives and non-archives, storing nothing, and runs naming an archive not uploaded or not the one declared', async () => {
    const before = { runs: (await runs()).length, archives: storedArchives() };
    const declared = await api('POST', `${STACK}/deployments/sources`, { size: 20, sha256: 'ab'.repeat(32) });
    const gzip = { 'content-type': 'application/gzip' };

    const tooBig = await api('POST', `${STACK}/deployments/sources`, { size: 4_000_001, sha256: 'ab'.repeat(32) });
    const bigBody = await api('PUT', `${STACK}/deployments/sources/${declared.json.id}`, Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(4_100_000)]), gzip);
    const notGzip = await api('PUT', `${STACK}/deployments/sources/${declared.json.id}`, Buffer.from('plain text, not an archive'), gzip);
    const unknown = await api('POST', `${STACK}/deployments`, { operation: 'update', sourceContext: { archive: { id: declared.json.id, sha256: 'ab'.repeat(32) } } });
    const inSettings = await api('POST', `${STACK}/deployments/settings`, { sourceContext: { archive: { id: declared.json.id, sha256: 'ab'.repeat(32) } } });
    const stored = await api('PUT', `${STACK}/deployments/sources/${declared.json.id}`, gzipSync('another program'), gzip);
    const replaced = await api('PUT', `${STACK}/deployments/sources/${declared.json.id}`, gzipSync('a third program'), gzip);
    const other = await api('POST', `${STACK}/deployments`, { operation: 'update', sourceContext: { archive: { id: declared.json.id, sha256: 'ab'.repeat(32) } } });

    expect(declared.status).toBe(200);
    expect(declared.json.uploadURI).toBe(`${service.serve!.url}${STACK}/deployments/sources/${declared.json.id}`);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.message).toMatch(/^The program archive is 4\.0 MB, over the 4\.0 MB a run's source may be/);
    expect(bigBody.status).toBe(413);
    expect(notGzip.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain('was not uploaded');
    expect(inSettings.status).toBe(400);
    expect(inSettings.json.message).toContain("is one run's source, not a stack setting");
    expect(stored.status).toBe(204);
    expect(replaced.status).toBe(409);
    expect(other.status).toBe(400);
    expect(other.json.message).toContain('is not the one declared');
    expect((await runs()).length).toBe(before.runs);
    expect(storedArchives()).toEqual([...before.archives, `${declared.json.id}.tgz`].sort());
  });

  it("removes a stack's archives with the stack", async () => {
    expect(storedArchives()).not.toEqual([]);

    const removed = await api('DELETE', `${STACK}?force=true`);

    expect(removed.status).toBe(200);
    expect(storedArchives()).toEqual([]);
  });
});
