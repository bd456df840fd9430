import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDir } from './files.js';

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
