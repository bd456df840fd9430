/**
 * `stackyard serve` as a process supervisor sees it: requests that arrive while it starts are answered, SIGTERM
 * with busy keep-alive clients and a request in flight ends in a clean exit within 10 s with that request answered,
 * a body longer than its Content-Length is never answered with a 400 instead of the request that ran, and every
 * request leaves one access-log line without a token in it.
 */
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, spawnTracked, stopChild } from '../support/processes.js';
import { startServe } from './serve-process.js';

const BUNDLE = fileURLToPath(new URL('../../dist/cli/stackyard.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Answer {
  status: number;
  body: string;
}

function send(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: string; agent?: Agent | false } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method,
        agent: options.agent ?? false,
        headers: {
          accept: 'application/vnd.pulumi+8',
          'content-type': 'application/json',
          ...(options.token ? { authorization: `token ${options.token}` } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stackyard serve start and stop', () => {
  it('answers every request that arrives while it starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-serve-life-'));
    dirs.push(dataDir);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const token = 'lifecycle-admin-token';
    let out = '';
    const child = spawnTracked(process.execPath, [BUNDLE, 'serve', '--port', String(port), '--data-dir', dataDir], {
      env: { ...process.env, STACKYARD_STORAGE: 'local', STACKYARD_ADMIN_TOKEN: token },
    });
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const answers: Promise<Answer>[] = [];
    let sentBeforeReady = 0;
    try {
      // Knock every 2 ms from the moment of spawn; each accepted connection is followed by a few requests.
      while (!out.includes('Log in with:') && child.exitCode === null && answers.length < 40) {
        const accepted = await new Promise<boolean>((resolve) => {
          const probe = connect(port, '127.0.0.1', () => resolve(true));
          probe.on('error', () => resolve(false));
          probe.once('connect', () => probe.destroy());
        });
        if (accepted) {
          if (!out.includes('Log in with:')) sentBeforeReady += 1;
          for (let i = 0; i < 5; i += 1) answers.push(send(url, 'GET', '/api/user', { token }));
        }
        await sleep(2);
      }
      const settled = await Promise.race([
        Promise.all(answers),
        sleep(40_000).then(() => {
          throw new Error('a request sent during start-up was never answered');
        }),
      ]);

      expect(sentBeforeReady).toBeGreaterThan(0);
      expect(settled.length).toBeGreaterThan(0);
      for (const answer of settled) expect(answer.status).toBe(200);
    } finally {
      await stopChild(child);
    }
  }, 60_000);

  it('on SIGTERM with busy keep-alive clients, finishes the request in flight and exits within 10 s', async () => {
    const serve = await startServe({ storage: 'local' });
    const token = serve.adminToken;
    const agents = Array.from({ length: 4 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    let running = true;
    const outcomes = { answered: 0, refused: 0, other: [] as string[] };
    const loops = agents.map(async (agent) => {
      while (running) {
        try {
          const answer = await send(serve.url, 'GET', '/api/user', { token, agent });
          if (answer.status === 200) outcomes.answered += 1;
          else outcomes.other.push(`status ${answer.status}`);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error);
          if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE') {
            outcomes.refused += 1;
            await sleep(20);
          } else outcomes.other.push(code);
        }
      }
    });
    try {
      await sleep(300);
      const answeredBeforeStop = outcomes.answered;
      // A stack creation whose body is still on its way when the signal arrives.
      const [head, tail] = ['{"stackName":', '"inflight"}'];
      const inFlight = new Promise<Answer>((resolve, reject) => {
        const req = httpRequest(`${serve.url}/api/stacks/admin/lifecycle`, {
          method: 'POST',
          agent: false,
          headers: { authorization: `token ${token}`, 'content-type': 'application/json', 'content-length': String(head.length + tail.length) },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write(head);
        setTimeout(() => req.end(tail), 1_000);
      });
      const exited = new Promise<{ at: number }>((resolve) => serve.child.once('exit', () => resolve({ at: Date.now() })));
      await sleep(200);
      const signalled = Date.now();

      serve.signal('SIGTERM');
      const answer = await inFlight;
      const exit = await exited;

      expect(answeredBeforeStop).toBeGreaterThan(0);
      expect(answer).toMatchObject({ status: 200 });
      // The test's process guard reports its own status (143 on TERM); serve's clean stop is its last line.
      expect(exit.at - signalled).toBeLessThan(10_000);
      expect(serve.stderr()).toContain('Received SIGTERM');
      expect(serve.stderr()).toContain('Stopped.');
      expect(serve.stderr()).not.toContain('exiting anyway');
      expect(outcomes.other).toEqual([]);
    } finally {
      running = false;
      await Promise.all(loops);
      agents.forEach((agent) => agent.destroy());
      await serve.stop();
    }
  }, 60_000);

  it('answers the request a connection carried before bytes past its Content-Length, then 400 for the rest', async () => {
    const serve = await startServe({ storage: 'local' });
    try {
      const body = '{"stackName":"framed"}';
      const raw =
        `POST /api/stacks/admin/framing HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${serve.adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}garbage-after-the-body`;
      const port = Number(new URL(serve.url).port);

      const received = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(raw));
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });

      const responses = received.split(/(?=HTTP\/1\.1 )/);
      expect(responses[0]).toMatch(/^HTTP\/1\.1 200 /);
      expect(responses[1]).toMatch(/^HTTP\/1\.1 400 /);
      expect(responses[1]).toContain('Malformed HTTP request');
      const stack = await send(serve.url, 'GET', '/api/stacks/admin/framing/framed', { token: serve.adminToken });
      expect(stack.status).toBe(200);
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('writes one access-log line per request: method, route, status, duration, request id, principal; no token', async () => {
    const serve = await startServe({ storage: 'local', args: ['--access-log'] });
    try {
      await send(serve.url, 'GET', '/api/user', { token: serve.adminToken });
      await send(serve.url, 'GET', '/api/user', { token: 'wrong-token-value' });
      await send(serve.url, 'GET', '/api/no/such/route');
      await sleep(100);

      const lines = serve
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.message === 'access');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatchObject({ method: 'GET', route: 'GET /api/user', status: 200, principal: 'admin', credential: 'token' });
      expect(lines[1]).toMatchObject({ route: 'GET /api/user', status: 401, principal: null, credential: 'token' });
      expect(lines[2]).toMatchObject({ route: '$default', status: 404, principal: null, credential: 'none' });
      for (const line of lines) {
        expect(typeof line.durationMs).toBe('number');
        expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
      }
      expect(serve.stdout()).not.toContain(serve.adminToken);
      expect(serve.stdout()).not.toContain('wrong-token-value');
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('keeps access logs off the terminal by default and ends with the log-in lines, repeated on SIGUSR1 and --print-login', async () => {
    const serve = await startServe({ storage: 'local', adminToken: null });
    try {
      await send(serve.url, 'GET', '/api/user');
      await send(serve.url, 'GET', '/api/no/such/route');
      await sleep(100);
      const atStart = serve.stdout();
      const token = /^ {2}(sy_\S+)$/m.exec(atStart)?.[1];

      const asked = spawnSync(process.execPath, [BUNDLE, 'serve', '--print-login', '--data-dir', serve.dataDir], { encoding: 'utf8' });
      const repeated = await waitFor(() => serve.stdout().slice(atStart.length), (text) => text.includes('Log in with:'));

      expect(atStart).not.toContain('"message":"access"');
      expect(atStart.trimEnd().split('\n').at(-1)).toBe(`Log in with: pulumi login ${serve.url}   (or: stackyard login ${serve.url})`);
      expect(token).toBeDefined();
      expect(asked.status, asked.stderr).toBe(0);
      expect(asked.stdout).toContain(`Log in with: pulumi login ${serve.url}`);
      expect(asked.stdout).not.toContain(token!);
      expect(repeated).toContain(`  ${token!}\n`);
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('--print-login says so when no serve runs with that data folder', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-serve-none-'));
    dirs.push(dataDir);

    const asked = spawnSync(process.execPath, [BUNDLE, 'serve', '--print-login', '--data-dir', dataDir], { encoding: 'utf8' });

    expect(asked.status).toBe(1);
    expect(asked.stderr).toContain(`no stackyard serve is running with the data folder ${dataDir}`);
  });
});

async function waitFor(read: () => string, done: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (!done(read()) && Date.now() < until) await sleep(50);
  return read();
}
