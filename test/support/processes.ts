import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const running = new Set<ChildProcess>();
// A test worker that dies without its afterAll must not leave java or node servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port that was free a moment ago (for programs that cannot listen on port 0 and report back). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `node` arguments that load TypeScript through tsx, resolved from this repository rather than the cwd. */
export function tsxNodeArgs(): string[] {
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
}

/**
 * Runs `"$@"` under sh and kills it when our end of sh's stdin closes, which also happens when this process dies
 * without cleaning up (a killed test worker must not leave a JVM behind). SIGTERM to sh stops the command too.
 */
const GUARD =
  'exec 3<&0; "$@" <&- & pid=$!; ' +
  'trap \'kill $pid 2>/dev/null; wait $pid; exit 143\' TERM; ' +
  '(read _ <&3; kill $pid 2>/dev/null) & ' +
  'wait $pid';

/** Exit status of the guard when the command itself could not be found. */
export const COMMAND_NOT_FOUND = 127;

/** Starts a tracked, guarded child process; `stopChild`, the worker's exit or its death ends it. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn('sh', ['-c', GUARD, 'sh', command, ...args], { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Last lines of a child's stderr, kept for error messages. */
export function captureStderr(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  });
  return () => tail.trim();
}

/**
 * Spawns a child that prints `READY <port>` on stdout once it listens, and resolves with that port. Rejects
 * (and kills the child) if it exits or stays silent for `timeoutMs`.
 */
export async function spawnReadyChild(
  label: string,
  command: string,
  args: string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawnTracked(command, args, options);
  const stderr = captureStderr(child);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffered: string | undefined = '';
      const timer = setTimeout(
        () => reject(new Error(`${label} did not start within ${options.timeoutMs ?? 20_000} ms. ${stderr()}`)),
        options.timeoutMs ?? 20_000,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`${label} could not be started: ${error.message}`, { cause: error }));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${label} exited during start-up (code ${code}, signal ${signal}). ${stderr()}`));
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        if (buffered === undefined) return;
        buffered += chunk.toString('utf8');
        const match = /READY (\d+)/.exec(buffered);
        if (match) {
          clearTimeout(timer);
          buffered = undefined;
          resolve(Number(match[1]));
        }
      });
    });
    return { child, port };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** SIGTERM, then SIGKILL if the child has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
