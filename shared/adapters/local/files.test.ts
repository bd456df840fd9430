import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.js';
import { DataDir } from './files.js';
import { lockOwner, processStart } from './lock-owner.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function dataDir(): DataDir {
  const root = mkdtempSync(join(tmpdir(), 'stackyard-files-'));
  roots.push(root);
  mkdirSync(join(root, 'tmp'));
  mkdirSync(join(root, 'locks'));
  return new DataDir(root);
}

describe('DataDir.readJson', () => {
  it('answers concurrent readers of one file with separate copies', async () => {
    const dir = dataDir();
    const target = dir.path('lease.json');
    await dir.writeJson(target, { n: 1 });

    const copies = await Promise.all(Array.from({ length: 50 }, () => dir.readJson<{ n: number }>(target)));
    copies[0]!.n = 99;

    expect(copies.slice(1).every((copy) => copy?.n === 1)).toBe(true);
  });

  it('reads what was written before it was asked, and undefined for a missing file', async () => {
    const dir = dataDir();
    const target = dir.path('lease.json');
    const missing = dir.readJson(target);
    await dir.writeJson(target, { n: 1 });
    const first = dir.readJson<{ n: number }>(target);
    await dir.writeJson(target, { n: 2 });

    expect(await missing).toBeUndefined();
    expect((await first)?.n).toBeGreaterThanOrEqual(1);
    expect((await dir.readJson<{ n: number }>(target))?.n).toBe(2);
  });
});

describe('DataDir.list', () => {
  it('answers concurrent listings of one folder with separate sorted copies, and [] for a missing folder', async () => {
    const dir = dataDir();
    const folder = dir.path('members');
    for (const name of ['b.json', 'a.json']) await dir.writeJson(join(folder, name), {});

    const listings = await Promise.all(Array.from({ length: 20 }, () => dir.list(folder)));
    listings[0]!.push('changed');

    expect(listings.slice(1).every((names) => names.join() === 'a.json,b.json')).toBe(true);
    expect(await dir.list(dir.path('absent'))).toEqual([]);
  });

  it('sees a file added before it was asked', async () => {
    const dir = dataDir();
    const folder = dir.path('members');
    await dir.writeJson(join(folder, 'a.json'), {});
    const before = await dir.list(folder);
    await dir.writeJson(join(folder, 'b.json'), {});

    expect(before).toEqual(['a.json']);
    expect(await dir.list(folder)).toEqual(['a.json', 'b.json']);
  });
});

describe('DataDir.withLock', () => {
  it('runs callers of one process one at a time, in the order they asked, without waiting on a poll', async () => {
    const dir = dataDir();
    const order: string[] = [];
    let inside = 0;
    const critical = (name: string) =>
      dir.withLock('stack', async () => {
        inside += 1;
        expect(inside).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        order.push(name);
        inside -= 1;
      });

    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(critical));

    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('releases the lock when the critical section throws', async () => {
    const dir = dataDir();

    await expect(dir.withLock('stack', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');

    await expect(dir.withLock('stack', async () => 'next')).resolves.toBe('next');
  });
});

describe('DataDir.withLock with a lock file left by another holder', () => {
  const lockPath = (dir: DataDir) => dir.path('locks', 'stack.lock');
  const plant = (dir: DataDir, holder: Record<string, unknown>) =>
    writeFileSync(lockPath(dir), JSON.stringify({ expiresAt: Date.now() + 30_000, nonce: 'planted', ...holder }));
  const me = lockOwner();
  /** Runs the critical section and says how long it waited for the lock. */
  const waited = async (dir: DataDir) => {
    const started = Date.now();
    await dir.withLock('stack', async () => undefined);
    return Date.now() - started;
  };

  it('breaks at once a lock whose holder process has exited', async () => {
    const dir = dataDir();
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    plant(dir, { ...me, pid: Number(exited.stdout), instance: 'exited', start: undefined });

    expect(await waited(dir)).toBeLessThan(5_000);
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it('breaks at once a lock taken by an earlier process with this same pid (a restarted container)', async () => {
    const dir = dataDir();
    plant(dir, { ...me, instance: 'the-previous-process' });

    expect(await waited(dir)).toBeLessThan(5_000);
  });

  it('breaks at once a lock whose pid now belongs to a process started later (pid reused)', async () => {
    const dir = dataDir();
    const parentStart = processStart(process.ppid);
    expect(parentStart).toBeDefined();
    plant(dir, { ...me, pid: process.ppid, instance: 'reused', start: String(Number(parentStart) - 1) });

    expect(await waited(dir)).toBeLessThan(5_000);
  });

  it('breaks at once a lock from an earlier boot of this host', async () => {
    const dir = dataDir();
    expect(me.boot).toBeDefined();
    plant(dir, { ...me, pid: process.ppid, instance: 'earlier-boot', boot: 'another-boot-id' });

    expect(await waited(dir)).toBeLessThan(5_000);
  });

  it('honours the lock of a live process until it lets go', async () => {
    const dir = dataDir();
    plant(dir, { ...me, pid: process.ppid, instance: 'live', start: processStart(process.ppid) });
    let ran = false;
    const critical = dir.withLock('stack', async () => void (ran = true));

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toBe(false);
    unlinkSync(lockPath(dir));
    await critical;
    expect(ran).toBe(true);
  });

  it('honours a lock from another host until it expires (its processes cannot be checked from here)', async () => {
    const dir = dataDir();
    plant(dir, { ...me, host: 'another-host', pid: 999_999, instance: 'remote', expiresAt: Date.now() + 400 });

    expect(await waited(dir)).toBeGreaterThanOrEqual(300);
  });

  it('gives up on an empty (torn) lock file of an older version after a short grace, not the 30 s expiry', async () => {
    const dir = dataDir();
    writeFileSync(lockPath(dir), '');

    const ms = await waited(dir);
    expect(ms).toBeGreaterThanOrEqual(1_000);
    expect(ms).toBeLessThan(10_000);
  });

  it('answers a wait that runs out with a retryable 503, never a 500', async () => {
    const root = dataDir().root;
    const dir = new DataDir(root, { lockWaitMs: 200 });
    plant(dir, { ...me, pid: process.ppid, instance: 'live', start: processStart(process.ppid) });

    const refused = await dir.withLock('stack', async () => 'ran').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect((refused as UnavailableError).status).toBe(503);
    expect((refused as UnavailableError).retryAfterSeconds).toBeGreaterThan(0);
  });

  it('writes a complete holder record into every lock it takes', async () => {
    const dir = dataDir();
    let record: Record<string, unknown> | undefined;

    await dir.withLock('stack', async () => void (record = JSON.parse(readFileSync(lockPath(dir), 'utf8'))));

    expect(record).toMatchObject({ pid: process.pid, host: me.host, instance: me.instance, nonce: expect.any(String) });
    expect(readdirSync(dir.path('tmp'))).toEqual([]);
  });
});
