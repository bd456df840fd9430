import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { freePort, spawnTracked, stopChild } from '../support/processes.js';

const BUNDLE = fileURLToPath(new URL('../../dist/cli/stackyard.mjs', import.meta.url));

/** A running `stackyard serve` child process (from the bundle, as users run it). */
export interface ServeProcess {
  url: string;
  dataDir: string;
  adminToken: string;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Everything it printed on stderr so far (the last 4,000 characters). */
  stderr(): string;
  /** The process itself, for tests of signals and exit. */
  child: ChildProcess;
  /** Sends a signal, as a supervisor would (its exit is then expected, not reported). */
  signal(name: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export interface ServeStart {
  storage: 'local' | 'aws';
  /** Extra environment (the stand-ins' for `aws`). */
  env?: Record<string, string>;
  /** Defaults to a fresh temporary folder, removed on stop. */
  dataDir?: string;
  /** Defaults to a generated one passed as STACKYARD_ADMIN_TOKEN; `null` starts without it. */
  adminToken?: string | null;
  /** More `serve` flags (`--access-log`; `--runners N`, else serve starts with `--runners 0`). */
  args?: string[];
}

/** Starts `node dist/cli/stackyard.mjs serve --port <free> --data-dir <tmp>` and waits for its login line. */
export async function startServe(options: ServeStart): Promise<ServeProcess> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run 'npm run build' first.`);
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'stackyard-serve-'));
  const adminToken = options.adminToken === undefined ? `admin-${Math.random().toString(36).slice(2)}-token` : options.adminToken;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    STACKYARD_STORAGE: options.storage,
    ...(adminToken ? { STACKYARD_ADMIN_TOKEN: adminToken } : {}),
  };
  if (!adminToken) delete env.STACKYARD_ADMIN_TOKEN;
  if (!options.env?.STACKYARD_PUBLIC_URL) delete env.STACKYARD_PUBLIC_URL;
  // No runner workers unless a test asks for them (`args: ['--runners', 'N']`): most tests queue no runs.
  const runners = options.args?.includes('--runners') ? [] : ['--runners', '0'];
  const child = spawnTracked(process.execPath, [BUNDLE, 'serve', '--port', String(port), '--data-dir', dataDir, ...runners, ...(options.args ?? [])], { env });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-4000)));
  let stopping = false;
  child.once('exit', (code, signal) => {
    // A server dying under a test shows up as connection errors there; say why here.
    if (!stopping) console.error(`stackyard serve exited unexpectedly (code ${code}, signal ${signal}).\n${out}\n${err}`);
  });
  const stop = async () => {
    stopping = true;
    await stopChild(child);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForLogin(child, () => out, () => err);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, dataDir, adminToken: adminToken ?? '', stdout: () => out, stderr: () => err, child, signal: (name) => {
    stopping = true;
    child.kill(name);
  }, stop };
}

function waitForLogin(child: ChildProcess, stdout: () => string, stderr: () => string, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      clearInterval(poll);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    const onExit = (code: number | null) =>
      done(new Error(`stackyard serve exited during start-up (code ${code}).\n${stdout()}\n${stderr()}`));
    const timer = setTimeout(() => done(new Error(`stackyard serve did not start in ${timeoutMs} ms.\n${stdout()}\n${stderr()}`)), timeoutMs);
    const poll = setInterval(() => {
      if (stdout().includes('Log in with:')) done();
    }, 20);
    child.once('exit', onExit);
  });
}
