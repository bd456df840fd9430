/**
 * Our engine on the service journals like the `pulumi` CLI: start asks for `journalVersion: 1`, and every save then
 * sends only the journal entries of the steps since the last save. Two stacks of one project run the same program
 * through a byte-counting proxy in front of `stackyard serve`, one with journaling and one with it turned off
 * (`STACKYARD_DISABLE_JOURNALING=true`, full checkpoints); an update that changes 1 of 200 resources must send a
 * small fraction of the bytes, and both stacks must end in the same state.
 */
import { copyFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, REPO, TESTPROV_DIR, removeSandboxes } from '../cli/cli-harness.js';
import { E2eProject, nameOf, type Exported } from './e2e-harness.js';

const COUNT = 200;

/** Forwards every request to `target`, adding up the request body bytes (as sent, gzipped) per last path segment. */
function countingProxy(target: string): Promise<{ url: string; sent: Map<string, number>; server: Server }> {
  const sent = new Map<string, number>();
  const server = createServer((req, res) => {
    const segment = (req.url ?? '').split('?')[0]!.split('/').pop()!;
    const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.on('data', (chunk: Buffer) => sent.set(segment, (sent.get(segment) ?? 0) + chunk.length));
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, server })));
}

describe('journaling through `stackyard serve`', () => {
  let serve: ServeProcess;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let project: E2eProject;

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    proxy = await countingProxy(serve.url);
    const sandbox = new CliSandbox();
    const login = await sandbox.run(sandbox.root, ['login', proxy.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
    expect(login.status, login.stderr).toBe(0);
    const dir = sandbox.project('many', `name: many\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`);
    copyFileSync(join(REPO, 'test/e2e/fixtures/many/index.js'), join(dir, 'index.js'));
    project = new E2eProject(sandbox, dir, {});
  });

  afterAll(async () => {
    proxy?.server.close();
    await serve?.stop();
    removeSandboxes();
  });

  /** Runs `up` on `stack`, returning the bytes it sent per persistence call. */
  async function up(stack: string, env: NodeJS.ProcessEnv): Promise<{ checkpoint: number; journalentries: number }> {
    proxy.sent.clear();
    const run = await project.sandbox.run(project.dir, ['up', '--yes', '--skip-preview', '--stack', stack], { env: { ...project.env, ...env } });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    return { checkpoint: proxy.sent.get('checkpoint') ?? 0, journalentries: proxy.sent.get('journalentries') ?? 0 };
  }

  async function exported(stack: string): Promise<Exported> {
    const out = await project.cli('stack', 'export', '--stack', stack);
    expect(out.status, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as Exported;
  }

  it('sends only the changed step of an update to 1 of 200 resources, and stores the same state as full checkpoints', { timeout: 120_000 }, async () => {
    const plain = { STACKYARD_DISABLE_JOURNALING: 'true' };
    for (const stack of ['journaled', 'checkpointed']) {
      expect((await project.cli('stack', 'init', stack)).status).toBe(0);
      expect((await project.cli('config', 'set', 'count', String(COUNT), '--stack', stack)).status).toBe(0);
    }
    await up('journaled', {});
    await up('checkpointed', plain);
    for (const stack of ['journaled', 'checkpointed']) await project.cli('config', 'set', 'changed', '7', '--stack', stack);

    const journaled = await up('journaled', {});
    const checkpointed = await up('checkpointed', plain);

    expect(journaled.checkpoint).toBe(0);
    expect(checkpointed.journalentries).toBe(0);
    expect(journaled.journalentries).toBeGreaterThan(0);
    const ratio = journaled.journalentries / checkpointed.checkpoint;
    console.log(`journaling: ${journaled.journalentries} B of journal entries vs ${checkpointed.checkpoint} B of checkpoints (${ratio.toFixed(4)}x)`);
    expect(ratio).toBeLessThan(0.1);

    const [a, b] = [await exported('journaled'), await exported('checkpointed')];
    // Sorted: a replayed journal lists the resources of this update first, as Pulumi's replayer does.
    const shape = (d: Exported) =>
      (d.deployment.resources ?? [])
        .filter((r) => r.type === 'testprov:index:Thing')
        .map((r) => [nameOf(r.urn), r.inputs?.value, r.outputs?.value])
        .sort(([x], [y]) => String(x).localeCompare(String(y)));
    expect(shape(a)).toHaveLength(COUNT);
    expect(shape(a)).toEqual(shape(b));
    expect(shape(a).find(([name]) => name === 'r7')).toEqual(['r7', 1_000_007, 1_000_007]);
    expect(a.deployment.pending_operations ?? []).toEqual([]);
  });
});
