// The bundled `stackyard serve` and a client with the Pulumi CLI's headers, shared by the benches that measure the
// service over HTTP (checkpoint-overhead, complete-large).
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const BUNDLE = fileURLToPath(new URL('../dist/cli/stackyard.mjs', import.meta.url));

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `dist/cli/stackyard.mjs serve` on a free port with `env` added; resolves once it prints its login line. */
export async function startBundledServe(dataDir, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [BUNDLE, 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}\n${err}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}\n${err}`)));
    const poll = setInterval(() => {
      if (out.includes('Log in with:')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 20);
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One call with the Pulumi CLI's headers, on one kept-alive socket; resolves with status and body text. */
export function call(url, method, path, { auth, body, gzipped } = {}) {
  const headers = {
    accept: 'application/vnd.pulumi+9',
    'content-type': 'application/json',
    'accept-encoding': 'gzip',
    'user-agent': 'pulumi-cli/1 (v3.248.0; linux)',
    ...(auth ? { authorization: auth } : {}),
    ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
    'content-length': String(body?.length ?? 0),
  };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        // The client asks for gzip, as the Pulumi CLI does; a large answer comes back compressed.
        const bytes = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode, text: bytes.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The parsed body of a successful call; anything else fails the bench, naming `what`. */
export async function expectOk(promise, what) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${what}: ${response.status} ${response.text}`);
  return response.text ? JSON.parse(response.text) : undefined;
}

/** Closes the kept-alive socket so the bench can exit. */
export function closeClient() {
  agent.destroy();
}
