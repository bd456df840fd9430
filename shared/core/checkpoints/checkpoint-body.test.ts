import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { prepareCheckpoint } from './checkpoint-body.js';
import { InvalidInputError } from '../errors.js';
import type { CheckpointUpload } from './types.js';

const urn = (n: number) => `urn:pulumi:dev::p::t:i:R::r${n}`;
const padding = 'x'.repeat(1024);

/** A state of `count` resources, each depending on the one before; over 8 MB from about 8,000 resources. */
function stateOf(resources: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ version: 3, deployment: { resources } }));
}
const resourcesOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ urn: urn(i), custom: true, type: 't:i:R', ...(i > 0 ? { dependencies: [urn(i - 1)] } : {}), outputs: { padding } }));

/** An upload as the checkpoint route makes one: inflated in 64 KiB chunks, counting how often it is read. */
function upload(decoded: Buffer): CheckpointUpload & { reads: number } {
  const result = {
    reads: 0,
    gzipped: gzipSync(decoded, { level: 1 }),
    async *chunks() {
      result.reads += 1;
      for (let at = 0; at < decoded.length; at += 64 * 1024) yield Buffer.from(decoded.subarray(at, at + 64 * 1024));
    },
  };
  return result;
}

const noStore = {
  prepare: () => {
    throw new Error('a gzip upload is stored as sent, never compressed again');
  },
} as unknown as CheckpointStore;

describe('prepareCheckpoint of a gzip upload', () => {
  it('checks and counts a large state while it is inflated, reading it once and never whole', async () => {
    const sent = upload(stateOf(resourcesOf(9000)));

    const checked = await prepareCheckpoint(noStore, sent);

    expect(checked.resourceCount).toBe(9000);
    expect(checked.prepared.gzipped).toBe(sent.gzipped);
    expect(checked.prepared.size).toBe(stateOf(resourcesOf(9000)).length);
    expect(sent.reads).toBe(1);
  });

  it('refuses a broken large state with the full check message, reading it again whole for that', async () => {
    const resources = resourcesOf(9000);
    const sent = upload(stateOf([...resources.slice(0, 100), resources[0], ...resources.slice(100)]));

    const preparing = prepareCheckpoint(noStore, sent);

    await expect(preparing).rejects.toBeInstanceOf(InvalidInputError);
    await expect(preparing).rejects.toThrow(/resource #101, rule duplicate-urn/);
    expect(sent.reads).toBe(2);
  });

  it('parses a small state whole, as before', async () => {
    const sent = upload(stateOf(resourcesOf(3)));

    const checked = await prepareCheckpoint(noStore, sent);

    expect(checked.resourceCount).toBe(3);
    expect(sent.reads).toBe(1);
    await expect(prepareCheckpoint(noStore, upload(Buffer.from('{"version":3,')))).rejects.toThrow(/not valid JSON/);
  });
});
