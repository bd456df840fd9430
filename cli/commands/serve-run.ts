import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../output/errors.js';

/** `serve`'s settings after flags and environment are combined. */
export interface ServeSettings {
  storage: 'local' | 'aws';
  dataDir: string;
  port: number;
  host: string;
}


/** Flags win over the environment; local storage lives in `$STACKYARD_HOME/serve` (STACKYARD_HOME: ~/.stackyard). */
export function serveSettings(flags: { port?: number; host?: string; dataDir?: string }, env: NodeJS.ProcessEnv): ServeSettings {
  const storage = (env.STACKYARD_STORAGE ?? 'local').trim().toLowerCase() || 'local';
  if (storage !== 'local' && storage !== 'aws') {
    throw new UserError(`STACKYARD_STORAGE must be 'local' or 'aws', not '${storage}'.`, 'Unset it to serve from local storage.');
  }
  const home = env.STACKYARD_HOME || join(homedir(), '.stackyard');
  return {
    storage,
    dataDir: flags.dataDir ?? join(home, 'serve'),
    port: flags.port ?? 8080,
    host: flags.host ?? '127.0.0.1',
  };
}

/**
 * Resolves at the first SIGINT or SIGTERM. From then on the process exits within `graceMs` whatever happens, and a
 * second signal exits at once (someone pressing Ctrl-C twice means it).
 */
function untilStopped(graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stderr.write(`Received ${signal}: no new connections; finishing the requests in flight.\n`);
      const force = () => process.exit(130);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      setTimeout(() => {
        process.stderr.write(`Requests still running after ${graceMs / 1000} s; exiting anyway.\n`);
        process.exit(1);
      }, graceMs).unref();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Where a running `serve` says which process it is and its URL (never a token), for `serve --print-login`. */
function runningFile(dataDir: string): string {
  return join(dataDir, 'serve.json');
}

/** Whether a process with this id is alive (a signal 0 probes without delivering anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `serve --print-login`: the `serve` of this data folder prints its log-in lines again on its own output (SIGUSR1);
 * the token it generated lives only in that process, so it cannot be printed here.
 */
function askToPrintLogin(dataDir: string): string[] {
  let running: { pid?: unknown; url?: unknown };
  try {
    running = JSON.parse(readFileSync(runningFile(dataDir), 'utf8')) as typeof running;
  } catch {
    running = {};
  }
  if (typeof running.pid !== 'number' || !isAlive(running.pid)) {
    throw new UserError(
      `no stackyard serve is running with the data folder ${dataDir}`,
      'Pass the --data-dir it was started with, or start it: its log-in lines end its output.',
    );
  }
  process.kill(running.pid, 'SIGUSR1');
  return [
    `Asked stackyard serve (pid ${running.pid}) to print its log-in lines again on its output.`,
    `Log in with: pulumi login ${String(running.url)}   (or: stackyard login ${String(running.url)})`,
  ];
}


/** The address runner workers reach this serve at: its own listener, whatever URL users log in with. */
function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * `serve --runner-worker` (hidden; started by serve itself): one runner process on serve's storage. It stops at
 * SIGTERM or SIGINT, or when the serve that started it goes away (its IPC channel closes).
 */
async function runRunnerWorker(settings: ServeSettings): Promise<void> {
  const [{ openStorage }, { runWorker }] = await Promise.all([import('../../functions/serve/server.js'), import('../../functions/runner/worker.js')]);
  const serviceUrl = process.env.STACKYARD_RUNNER_SERVICE_URL;
  if (!serviceUrl) throw new UserError('serve --runner-worker is started by `stackyard serve --runners N`, not by hand.');
  const shutdown = new AbortController();
  const stop = () => shutdown.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
  const storage = await openStorage({ ...settings, env: process.env });
  try {
    await runWorker({ storage, serviceUrl, cli: process.argv[1]!, env: process.env, warn: (line) => process.stderr.write(`runner ${process.pid}: ${line}\n`) }, shutdown.signal);
  } finally {
    await storage.close();
  }
  process.exit(0);
}

/** From the first signal to exit, at most: what process supervisors usually allow before SIGKILL. */
const STOP_GRACE_MS = 10_000;

export type ServeFlags = { port?: number; host?: string; dataDir?: string; accessLog?: boolean; printLogin?: boolean; runners?: number; runnerWorker?: boolean };

/** What `stackyard serve` does once its flags are parsed (serve.ts holds its grammar). */
export async function runServe(flags: ServeFlags): Promise<void> {
  const settings = serveSettings(flags, process.env);
  if (flags.runnerWorker) return runRunnerWorker(settings);
  if (flags.printLogin) {
    for (const line of askToPrintLogin(settings.dataDir)) process.stdout.write(`${line}\n`);
    return;
  }
  const { createServer } = await import('../../functions/serve/server.js');
  const running = await createServer({
    ...settings,
    env: process.env,
    accessLog: flags.accessLog === true,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  const runners = flags.runners ?? 1;
  const { startRunnerPool } = await import('../../functions/runner/pool.js');
  const pool =
    runners > 0
      ? startRunnerPool({
          count: runners,
          entry: process.argv[1]!,
          args: ['serve', '--runner-worker', '--data-dir', settings.dataDir],
          env: { ...process.env, STACKYARD_RUNNER_SERVICE_URL: localUrl(settings.host, running.port) },
          onUnexpectedExit: (code, signal) => process.stderr.write(`A runner worker exited (${signal ?? `code ${code}`}); starting another.\n`),
        })
      : undefined;
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(runningFile(settings.dataDir), `${JSON.stringify({ pid: process.pid, url: running.url })}\n`);
  const repeat = () => running.printLogin();
  process.on('SIGUSR1', repeat);
  await untilStopped(STOP_GRACE_MS);
  process.off('SIGUSR1', repeat);
  rmSync(runningFile(settings.dataDir), { force: true });
  await Promise.all([pool?.stop(), running.close()]);
  process.stderr.write('Stopped.\n');
}
