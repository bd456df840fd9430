import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderBucket } from './diy-bucket.js';
import { DiySource } from './diy-source.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sy-diy-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function put(key: string, content: string | Buffer, modifiedSeconds?: number): void {
  const path = join(root, ...key.split('/'));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  if (modifiedSeconds !== undefined) utimesSync(path, modifiedSeconds, modifiedSeconds);
}

const checkpoint = (stack: string, project: string, marker: string) =>
  JSON.stringify({
    version: 3,
    checkpoint: {
      stack,
      latest: {
        manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: '' },
        resources: [{ urn: `urn:pulumi:${stack}::${project}::pulumi:pulumi:Stack::${project}-${stack}`, custom: false, type: 'pulumi:pulumi:Stack', outputs: { marker } }],
      },
    },
  });

describe('DiySource', () => {
  it('reads the project-scoped layout: the newest of .json/.json.gz is current, tags and history with their checkpoints', async () => {
    put('.pulumi/meta.yaml', 'version: 1\n');
    put('.pulumi/stacks/web/dev.json', checkpoint('dev', 'web', 'old-plain'), 1_000);
    put('.pulumi/stacks/web/dev.json.gz', gzipSync(checkpoint('dev', 'web', 'new-gzip')), 2_000);
    put('.pulumi/stacks/web/dev.pulumi-tags', JSON.stringify({ version: 1, tags: { team: 'a' } }));
    put('.pulumi/stacks/api/prod.json', JSON.stringify({ version: 3, checkpoint: { stack: 'prod' } }));
    const info = (result: string, startTime: number) =>
      JSON.stringify({ kind: 'update', startTime, endTime: startTime + 5, message: 'm', environment: null, result, version: 0, config: { 'web:a': 'x', 'web:b': { secure: 'v1:AA==:BB==' }, 'web:c': { k: [1] } } });
    put('.pulumi/history/web/dev/dev-1700000000000000001.history.json', info('succeeded', 10));
    put('.pulumi/history/web/dev/dev-1700000000000000001.checkpoint.json', checkpoint('dev', 'web', 'h1'));
    put('.pulumi/history/web/dev/dev-1700000000000000002.history.json.gz', gzipSync(info('in-progress', 20)));
    put('.pulumi/history/web/dev/dev-1700000000000000003.history.json.gz', gzipSync(info('failed', 30)));
    const source = new DiySource(folderBucket(root), {});

    const stacks = await source.stacks();
    const dev = stacks.find((s) => s.name === 'web/dev')!;
    const history = await dev.history();

    expect(stacks.map((s) => [s.name, s.project, s.stack])).toEqual([
      ['api/prod', 'api', 'prod'],
      ['web/dev', 'web', 'dev'],
    ]);
    expect(await stacks[0]!.current()).toBeUndefined();
    expect(((await dev.current())!.deployment.resources as { outputs: { marker: string } }[])[0]!.outputs.marker).toBe('new-gzip');
    expect(await dev.tags()).toEqual({ team: 'a' });
    expect(history.map((h) => [h.result, h.startTime])).toEqual([
      ['succeeded', 10],
      ['failed', 30],
    ]);
    expect(history[0]!.config).toEqual({
      'web:a': { string: 'x', secret: false, object: false },
      'web:b': { string: 'v1:AA==:BB==', secret: true, object: false },
      'web:c': { string: '{"k":[1]}', secret: false, object: true },
    });
    expect(((await history[0]!.deployment())!.deployment.resources as { outputs: { marker: string } }[])[0]!.outputs.marker).toBe('h1');
    expect(await history[1]!.deployment()).toBeUndefined();
  });

  it('reads the legacy layout: the project from the URNs, else the pulumi:project tag, else the folder\'s project', async () => {
    put('.pulumi/stacks/one.json', checkpoint('one', 'alpha', 'x'));
    put('.pulumi/stacks/two.json', JSON.stringify({ version: 3, checkpoint: { stack: 'two' } }));
    put('.pulumi/stacks/two.pulumi-tags', JSON.stringify({ version: 1, tags: { 'pulumi:project': 'beta' } }));
    put('.pulumi/stacks/three.json', JSON.stringify({ version: 3, checkpoint: { stack: 'three' } }));
    put('.pulumi/stacks/web/ignored.json', checkpoint('ignored', 'web', 'x'));

    const withFallback = await new DiySource(folderBucket(root), {}, 'gamma').stacks();
    const without = await new DiySource(folderBucket(root), {}).stacks();

    expect(withFallback.map((s) => [s.name, s.project])).toEqual([
      ['one', 'alpha'],
      ['three', 'gamma'],
      ['two', 'beta'],
    ]);
    expect(without.find((s) => s.name === 'three')!.project).toBeUndefined();
  });

  it('reports a stack an update holds (a lock file), naming the holder', async () => {
    put('.pulumi/meta.yaml', 'version: 1\n');
    put('.pulumi/stacks/web/dev.json', checkpoint('dev', 'web', 'x'));
    put('.pulumi/stacks/web/free.json', checkpoint('free', 'web', 'x'));
    put('.pulumi/locks/organization/web/dev/0b1c.json', JSON.stringify({ pid: 1, username: 'ann', hostname: 'ci-7', timestamp: '2026-11-24T10:00:00Z' }));

    const [dev, free] = await new DiySource(folderBucket(root), {}).stacks();

    expect(await dev!.busy()).toBe(
      'an update holds the source stack (lock .pulumi/locks/organization/web/dev/0b1c.json by ann@ci-7 since 2026-11-24T10:00:00Z): wait for it to finish, or remove a stale lock with `pulumi cancel`',
    );
    expect(await free!.busy()).toBeUndefined();
  });

  it('refuses a layout version it does not know, and a file that is not a checkpoint', async () => {
    put('.pulumi/meta.yaml', 'version: 2\n');
    await expect(new DiySource(folderBucket(root), {}).stacks()).rejects.toThrow('uses DIY layout version 2');
    put('.pulumi/meta.yaml', 'version: 1\n');
    put('.pulumi/stacks/web/dev.json', '{"version": 3}');
    await expect(new DiySource(folderBucket(root), {}).stacks()).rejects.toThrow('is not a Pulumi checkpoint');
  });

  it('a zstd checkpoint is read where Node.js has zstd, else refused with the fix', async () => {
    const zlib = (await import('node:zlib')) as unknown as { zstdCompressSync?: (b: Buffer) => Buffer };
    put('.pulumi/meta.yaml', 'version: 1\n');
    const frame = zlib.zstdCompressSync
      ? zlib.zstdCompressSync(Buffer.from(checkpoint('dev', 'web', 'zstd')))
      : Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]);
    put('.pulumi/stacks/web/dev.json.zst', frame);
    const reading = new DiySource(folderBucket(root), {}).stacks();

    if (zlib.zstdCompressSync) {
      const [stack] = await reading;
      expect(((await stack!.current())!.deployment.resources as { outputs: { marker: string } }[])[0]!.outputs.marker).toBe('zstd');
    } else {
      await expect(reading).rejects.toThrow('zstd-compressed, which needs Node.js 22.15 or later');
    }
  });
});
