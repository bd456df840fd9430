/**
 * Storage locks of a killed `serve` do not hold up the next one: serve is SIGKILLed in the middle of a burst of
 * creates (each holds the local adapter's `stacks` lock), restarted on the same data folder, and the next request
 * succeeds at once instead of waiting out the lock's 30 s expiry. A restart that gets the killed process's pid back
 * (PID 1 in a container) is covered by a lock file naming the new server's own pid. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/processes.js';
import { startKillableServe } from './killable-serve.js';
import { ok, PulumiWire } from './pulumi-wire.js';
import { createStack } from './wire-fixtures.js';

const adminToken = `sy_${randomBytes(24).toString('hex')}`;
const admin = { token: adminToken };
const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-lock-kill-'));
const locksDir = join(dataDir, 'locks');
const children: ChildProcess[] = [];
/** Well under the 30 s a lock lives: a request that waited for an expiry would take longer. */
const PROMPT_MS = 10_000;

async function startServe(): Promise<{ child: ChildProcess; url: string }> {
  const serve = await startKillableServe(dataDir, { STACKYARD_STORAGE: 'local', STACKYARD_ADMIN_TOKEN: adminToken });
  children.push(serve.child);
  return serve;
}

const lockFiles = () => readdirSync(locksDir).filter((name) => name.endsWith('.lock'));

/** Creates a stack and says how long it took; a create cut short by the kill may have stored it, which is fine. */
async function timedCreate(wire: PulumiWire, stack: string): Promise<number> {
  const started = Date.now();
  await createStack(wire, adminToken, { org: 'acme', project: 'proj', stack });
  return Date.now() - started;
}

afterAll(async () => {
  for (const child of children) await stopChild(child);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('serve killed while it holds storage locks', () => {
  it('answers the first request after a restart promptly', { timeout: 180_000 }, async () => {
    // Arrange: kill a server mid-burst until one dies holding a lock (the burst keeps the `stacks` lock busy).
    let left: string[] = [];
    for (let round = 0; round < 10 && left.length === 0; round += 1) {
      const server = await startServe();
      const wire = new PulumiWire(server.url);
      if (round === 0) ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
      const creates = Array.from({ length: 40 }, (_, i) =>
        wire.call('POST', '/api/stacks/acme/proj', { auth: admin, body: { stackName: `r${round}-s${i}` } }).catch(() => undefined),
      );
      await Promise.race(creates);
      server.child.kill('SIGKILL');
      await Promise.all(creates);
      wire.close();
      left = lockFiles();
    }
    expect(left.length, 'no round left a lock file behind').toBeGreaterThan(0);
    const record = JSON.parse(readFileSync(join(locksDir, left[0]!), 'utf8'));
    expect(record).toMatchObject({ pid: expect.any(Number), host: hostname(), expiresAt: expect.any(Number) });
    expect(record.expiresAt).toBeGreaterThan(Date.now() + PROMPT_MS);

    // Act: restart on the same data and create a stack right away.
    const server = await startServe();
    const wire = new PulumiWire(server.url);
    const first = await timedCreate(wire, 'after-restart');

    // Assess
    expect(first).toBeLessThan(PROMPT_MS);
    expect(lockFiles()).toEqual([]);

    // Arrange: the lock a killed predecessor with this very pid would have left (a container's PID 1).
    writeFileSync(
      join(locksDir, 'stacks.lock'),
      JSON.stringify({ pid: server.child.pid, host: hostname(), instance: 'the-killed-predecessor', expiresAt: Date.now() + 30_000, nonce: 'x' }),
    );

    // Act + Assess
    expect(await timedCreate(wire, 'same-pid')).toBeLessThan(PROMPT_MS);
    ok(await wire.call('GET', '/api/stacks/acme/proj/same-pid', { auth: admin }));
    wire.close();
  });
});
