/**
 * A webhook receiver run as its own process by the hook tests (`node --import tsx receiver.ts`); prints
 * `READY <port>` once it listens on 127.0.0.1. What it answers depends on the path:
 *
 * - `POST /ok/<label>`: 200.
 * - `POST /flaky/<n>/<label>`: 503 to the first `n` requests on that path, then 200.
 * - `POST /dead/<label>`: always 500.
 * - `POST /gate/<label>`: a gate's answer, `{"allow": true}` until `POST /__gate/<label>` sets another.
 * - `GET /__received`: every request above so far, in order, as `{path, headers, body, status}` (body = raw text).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../support/read-body.js';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, exactly as it arrived. */
  body: string;
  /** What the receiver answered. */
  status: number;
}

const received: Received[] = [];
const seenPerPath = new Map<string, number>();
const gateAnswers = new Map<string, unknown>();

function answer(path: string): { status: number; body: string } {
  const seen = (seenPerPath.get(path) ?? 0) + 1;
  seenPerPath.set(path, seen);
  const flaky = /^\/flaky\/(\d+)\//.exec(path);
  if (flaky) return seen <= Number(flaky[1]) ? { status: 503, body: 'not yet' } : { status: 200, body: '{}' };
  if (path.startsWith('/dead/')) return { status: 500, body: 'down' };
  if (path.startsWith('/gate/')) return { status: 200, body: JSON.stringify(gateAnswers.get(path.slice('/gate/'.length)) ?? { allow: true }) };
  if (path.startsWith('/ok/')) return { status: 200, body: '{}' };
  return { status: 404, body: 'no such receiver path' };
}

const server = createServer(async (request, response) => {
  const path = request.url ?? '/';
  const body = await readBody(request);
  if (request.method === 'GET' && path === '/__received') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(received));
    return;
  }
  if (request.method === 'POST' && path.startsWith('/__gate/')) {
    gateAnswers.set(path.slice('/__gate/'.length), JSON.parse(body));
    response.writeHead(204);
    response.end();
    return;
  }
  const { status, body: reply } = answer(path);
  received.push({ path, headers: request.headers, body, status });
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(reply);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
