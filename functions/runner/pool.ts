/**
 * serve's runner pool: `--runners N` worker processes, each running the runner module (worker.ts). A worker that
 * dies is started again; the pool stops them all when serve stops, and a worker whose serve is gone (its IPC channel
 * closed, even by a SIGKILL) stops by itself.
 */
import { fork, type ChildProcess } from 'node:child_process';

export interface RunnerPoolOptions {
  count: number;
  /** The CLI entry to start (`process.argv[1]`) and its arguments (`serve --runner-worker …`). */
  entry: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** A worker exited while the pool was running (it is restarted). */
  onUnexpectedExit(code: number | null, signal: NodeJS.Signals | null): void;
}

export interface RunnerPool {
  /** SIGTERM to every worker (each records its run as stopped), SIGKILL to any still there after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const RESTART_DELAY_MS = 1_000;

export function startRunnerPool(options: RunnerPoolOptions): RunnerPool {
  const workers = new Set<ChildProcess>();
  let stopping = false;

  const start = () => {
    const worker = fork(options.entry, options.args, { env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    workers.add(worker);
    worker.once('exit', (code, signal) => {
      workers.delete(worker);
      if (stopping) return;
      options.onUnexpectedExit(code, signal);
      setTimeout(() => stopping || start(), RESTART_DELAY_MS).unref();
    });
  };
  for (let i = 0; i < options.count; i++) start();

  return {
    async stop(graceMs = 7_000) {
      stopping = true;
      await Promise.all(
        [...workers].map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.exitCode !== null || worker.signalCode !== null) return resolve();
              const kill = setTimeout(() => worker.kill('SIGKILL'), graceMs);
              worker.once('exit', () => {
                clearTimeout(kill);
                resolve();
              });
              worker.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
