import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { InvalidInputError, TooLargeError } from '../../shared/core/errors.js';
import { decodeBody, decodeBodyChunks, parseJsonBody, validateBody } from './decode.js';
import { MAX_REQUEST_BODY_BYTES } from './limits.js';
import type { HttpRequest } from './types.js';

function request(body: Buffer, headers: Record<string, string> = {}): HttpRequest {
  return { method: 'PATCH', path: '/api/x', headers, query: new URLSearchParams(), body, requestId: 'r-1' };
}

describe('decodeBody', () => {
  it('returns the exact bytes of a plain body', async () => {
    const body = Buffer.from('{"a":"\\u003c é"}');

    const decoded = await decodeBody(request(body));

    expect(decoded.equals(body)).toBe(true);
  });

  it('inflates Content-Encoding: gzip to the exact original bytes', async () => {
    const original = Buffer.from(JSON.stringify({ text: 'ü'.repeat(5000) }));

    const decoded = await decodeBody(request(gzipSync(original), { 'content-encoding': 'gzip' }));

    expect(decoded.equals(original)).toBe(true);
  });

  it('inflates a large body into one buffer the size the gzip trailer declares, not chunks and a copy', async () => {
    const original = Buffer.from(JSON.stringify(Array.from({ length: 60_000 }, (_, i) => ({ urn: `urn:${i}`, n: i * 7919 }))));
    const body = gzipSync(original);
    const allocate = vi.spyOn(Buffer, 'allocUnsafe');

    try {
      const decoded = await decodeBody(request(body, { 'content-encoding': 'gzip' }));

      expect(decoded.equals(original)).toBe(true);
      // Buffers of a chunk's size or more (anything else zlib or the runtime allocates meanwhile is small).
      const allocated = allocate.mock.calls.reduce((sum, [size]) => (size >= 16 * 1024 ? sum + size : sum), 0);
      expect(allocated).toBeLessThanOrEqual(original.length + 1);
    } finally {
      allocate.mockRestore();
    }
  });

  it('inflates a body of several gzip members, whose trailer declares only the size of the last', async () => {
    const first = Buffer.from('{"text":"' + 'ab'.repeat(300_000));
    const second = Buffer.from('"}');

    const decoded = await decodeBody(request(Buffer.concat([gzipSync(first), gzipSync(second)]), { 'content-encoding': 'gzip' }));

    expect(decoded.equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('refuses a gzip body that inflates past the limit with 413, without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));

    const decoding = decodeBody(request(bomb, { 'content-encoding': 'gzip' }), 1024 * 1024);

    await expect(decoding).rejects.toBeInstanceOf(TooLargeError);
    await expect(decoding).rejects.toThrow(/inflates to more than 1\.0 MB/);
  });

  it('refuses a wire body over the Lambda-sized cap with 413 saying how to keep requests small', async () => {
    const decoding = decodeBody(request(Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1)));

    await expect(decoding).rejects.toBeInstanceOf(TooLargeError);
    await expect(decoding).rejects.toThrow(/PULUMI_OPTIMIZED_CHECKPOINT_PATCH/);
  });

  it('accepts a body exactly at the cap', async () => {
    const decoded = await decodeBody(request(Buffer.alloc(MAX_REQUEST_BODY_BYTES, 0x20)));

    expect(decoded.length).toBe(MAX_REQUEST_BODY_BYTES);
  });

  it('rejects corrupt gzip and other encodings with 400', async () => {
    await expect(decodeBody(request(Buffer.from('not gzip'), { 'content-encoding': 'gzip' }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(decodeBody(request(Buffer.from('x'), { 'content-encoding': 'br' }))).rejects.toThrow(/'br' is not supported/);
  });
});

describe('decodeBodyChunks', () => {
  async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
    const collected: Buffer[] = [];
    for await (const chunk of chunks) collected.push(chunk);
    return collected;
  }

  it('inflates a gzip body in chunks of at most 256 KiB that add up to the exact original bytes', async () => {
    const original = Buffer.from(JSON.stringify(Array.from({ length: 200_000 }, (_, i) => ({ urn: `urn:${i}`, n: i * 7919 }))));
    expect(original.length).toBeGreaterThan(2 * 1024 * 1024);

    const chunks = await collect(decodeBodyChunks(request(gzipSync(original), { 'content-encoding': 'gzip' })));

    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(256 * 1024);
    expect(Buffer.concat(chunks).equals(original)).toBe(true);
  });

  it('inflates a body of up to 2 MiB in one chunk', async () => {
    const original = Buffer.from(JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ urn: `urn:${i}`, n: i * 7919 }))));
    expect(original.length).toBeGreaterThan(1024 * 1024);

    const chunks = await collect(decodeBodyChunks(request(gzipSync(original), { 'content-encoding': 'gzip' })));

    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.equals(original)).toBe(true);
  });

  it('hands a plain body over as it is', async () => {
    const body = Buffer.from('{"a":1}');

    const chunks = await collect(decodeBodyChunks(request(body)));

    expect(chunks).toEqual([body]);
  });

  it('refuses what decodeBody refuses, with the same errors', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    const inflating = collect(decodeBodyChunks(request(bomb, { 'content-encoding': 'gzip' }), 1024 * 1024));
    await expect(inflating).rejects.toBeInstanceOf(TooLargeError);
    await expect(inflating).rejects.toThrow(/inflates to more than 1\.0 MB/);
    const corrupt = collect(decodeBodyChunks(request(Buffer.from('not gzip'), { 'content-encoding': 'gzip' })));
    await expect(corrupt).rejects.toThrow(/not valid gzip data/);
    await expect(collect(decodeBodyChunks(request(Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1))))).rejects.toThrow(/PULUMI_OPTIMIZED/);
    await expect(collect(decodeBodyChunks(request(Buffer.from('x'), { 'content-encoding': 'br' })))).rejects.toThrow(/'br'/);
  });
});

describe('parseJsonBody', () => {
  it('treats an empty body as no body', () => {
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
  });

  it('rejects malformed JSON with 400', () => {
    expect(() => parseJsonBody(Buffer.from('{"a":'))).toThrow(InvalidInputError);
  });
});

describe('validateBody', () => {
  const schema = z.object({ status: z.enum(['succeeded', 'failed']), nested: z.object({ n: z.number() }) });

  it('names the offending field', () => {
    expect(() => validateBody(schema, { status: 'succeeded', nested: { n: 'x' } }, 'complete request')).toThrow(
      /Invalid complete request: field 'nested\.n'/,
    );
  });

  it('says when there is no body at all', () => {
    expect(() => validateBody(schema, undefined, 'complete request')).toThrow(/has no body/);
  });

  it('returns the parsed value when valid', () => {
    expect(validateBody(schema, { status: 'failed', nested: { n: 1 } }, 'x')).toEqual({ status: 'failed', nested: { n: 1 } });
  });
});
