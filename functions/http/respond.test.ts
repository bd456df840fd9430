import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LeaseHeldError, NotFoundError, UnavailableError } from '../../shared/core/errors.js';
import { acceptsGzip, errorResponse, finishResponse, GZIP_MIN_BYTES, jsonResponse, type ApiLogger } from './respond.js';
import type { HttpRequest } from './types.js';

function recordingLogger() {
  const lines: { level: string; message: string; attributes: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, attributes: Record<string, unknown>) => lines.push({ level, message, attributes });
  const logger: ApiLogger = { error: at('error'), warn: at('warn'), info: at('info') };
  return { logger, lines };
}

function request(headers: Record<string, string> = {}): HttpRequest {
  return { method: 'GET', path: '/api/user', headers, query: new URLSearchParams(), body: Buffer.alloc(0), requestId: 'req-42' };
}

const json = (body: Buffer) => JSON.parse(body.toString('utf8'));

describe('errorResponse', () => {
  it('renders a domain error as its status with code equal to the status', () => {
    const { logger, lines } = recordingLogger();

    const response = errorResponse(new NotFoundError("Stack 'a/b/c' not found"), request(), logger);

    expect(response.status).toBe(404);
    expect(json(response.body)).toEqual({ code: 404, message: "Stack 'a/b/c' not found" });
    expect(lines).toEqual([]);
  });

  it('keeps the exact conflict message of a held lease', () => {
    const { logger } = recordingLogger();
    const error = new LeaseHeldError({ updateId: 'u1', holder: 'alice', startedAt: 0, expiresAt: 300_000 });

    const response = errorResponse(error, request(), logger);

    expect(response.status).toBe(409);
    expect(json(response.body).message).toMatch(/^Conflict: Another update is currently in progress\. Update u1 by alice/);
  });

  it('hides an unexpected error behind an opaque 500 naming the request id, and logs it', () => {
    const { logger, lines } = recordingLogger();

    const response = errorResponse(new TypeError('cannot read x of undefined (secret internals)'), request(), logger);

    expect(response.status).toBe(500);
    const body = json(response.body);
    expect(body.code).toBe(500);
    expect(body.message).toContain('req-42');
    expect(body.message).not.toContain('secret internals');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', attributes: { path: '/api/user', error: { name: 'TypeError' } } });
  });

  it('answers unavailability with 503, Retry-After in seconds and a warning', () => {
    const { logger, lines } = recordingLogger();

    const response = errorResponse(new UnavailableError('DynamoDB throttled; retry'), request(), logger);

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(lines.map((l) => l.level)).toEqual(['warn']);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['x-gzip', true],
    ['gzip;q=0', false],
    ['br, deflate', false],
    [undefined, false],
  ])('%s -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('finishResponse', () => {
  const big = { text: 'x'.repeat(GZIP_MIN_BYTES * 4) };

  it('gzips a large body for a client that accepts gzip, and stamps the request id', async () => {
    const { logger } = recordingLogger();

    const response = await finishResponse(jsonResponse(200, big), request({ 'accept-encoding': 'gzip' }), logger);

    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['x-pulumi-request-id']).toBe('req-42');
    expect(json(gunzipSync(response.body))).toEqual(big);
  });

  it('sends no Content-Encoding at all otherwise', async () => {
    const { logger } = recordingLogger();

    const plain = await finishResponse(jsonResponse(200, big), request({ 'accept-encoding': 'br' }), logger);
    const small = await finishResponse(jsonResponse(200, { a: 1 }), request({ 'accept-encoding': 'gzip' }), logger);

    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(json(plain.body)).toEqual(big);
    expect(small.headers['x-pulumi-request-id']).toBe('req-42');
  });
});
