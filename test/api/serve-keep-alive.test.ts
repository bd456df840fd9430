/**
 * serve keeps an idle connection open past Node's 5 s default, as Go's transport (the pulumi CLI's) and API Gateway
 * expect: a client that reuses it after a slow step must not meet a hang-up.
 */
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './serve-process.js';

function get(url: string, token: string, agent: Agent): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/capabilities`, { agent, headers: { authorization: `token ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve keep-alive', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('answers a request on a connection left idle for 6 s, on that same connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(serve.url, serve.adminToken, agent);

    await new Promise((r) => setTimeout(r, 6_000));
    const second = await get(serve.url, serve.adminToken, agent);
    agent.destroy();

    expect(first).toEqual({ status: 200, reused: false });
    expect(second).toEqual({ status: 200, reused: true });
  });
});
