/**
 * Framing errors on a real node:http server with serve's connection tracker and listener, driven over raw sockets:
 * each malformed request gets one JSON 400 and a closed connection, and a well-framed request before it on the same
 * connection is still answered first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackConnections } from './connections.js';
import { createNodeListener } from './node-adapter.js';

let server: Server;
let port: number;
const handled: string[] = [];

beforeAll(async () => {
  server = createServer();
  const tracker = trackConnections(server);
  server.on(
    'request',
    createNodeListener(
      () => async (event) => {
        handled.push(event.body ?? '');
        return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ got: event.body ?? '' }) };
      },
      tracker,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes each part (50 ms apart, so the server parses them separately) and returns all it sent back until it closed. */
function exchange(parts: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was neither answered nor closed within 3 s; received ${JSON.stringify(text)}`));
    }, 3_000);
    const socket = connect(port, '127.0.0.1', async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0) await new Promise((wait) => setTimeout(wait, 50));
        if (!socket.destroyed) socket.write(part);
      }
    });
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', () => undefined);
  });
}

const CHUNKED_HEAD = 'POST /api/stacks/acme/proj HTTP/1.1\r\nHost: serve\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';

function parse(response: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined };
}

describe('serve answers malformed chunked framing', () => {
  it.each([
    ['a chunk size that is not hexadecimal', [`${CHUNKED_HEAD}zz\r\n{}\r\n0\r\n\r\n`]],
    ['a bad chunk size after a good chunk, in a later packet', [`${CHUNKED_HEAD}2\r\n{}\r\n`, 'g1\r\nx\r\n0\r\n\r\n']],
    ['chunk data longer than its size', [`${CHUNKED_HEAD}1\r\n{}\r\n0\r\n\r\n`]],
    ['a chunk size past 64 bits', [`${CHUNKED_HEAD}fffffffffffffffffff\r\n`]],
  ])('with %s: one JSON 400, the connection closed, the request not run', async (_case, parts) => {
    handled.length = 0;

    const received = await exchange(parts);

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(1);
    const answer = parse(responses[0]!);
    expect(answer.status).toBe(400);
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.headers).toContain('connection: close');
    expect(answer.body).toMatchObject({ code: 400, message: expect.stringContaining('chunked framing') });
    expect(handled).toEqual([]);
  });

  it('runs a well-framed chunked body sent in pieces', async () => {
    handled.length = 0;

    const received = await exchange([
      `${CHUNKED_HEAD.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')}3\r\n{"a\r\n`,
      '4\r\n":1}\r\n0\r\n\r\n',
    ]);

    expect(parse(received)).toMatchObject({ status: 200, body: { got: '{"a":1}' } });
    expect(handled).toEqual(['{"a":1}']);
  });

  it('answers a complete request first, then 400 for the bytes past its Content-Length', async () => {
    handled.length = 0;
    const body = '{"stackName":"framed"}';

    const received = await exchange([
      `POST /api/stacks/acme/proj HTTP/1.1\r\nHost: serve\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}garbage`,
    ]);

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((response) => parse(response).status)).toEqual([200, 400]);
    expect(responses[1]).toContain('Malformed HTTP request');
    expect(handled).toEqual([body]);
  });
});
