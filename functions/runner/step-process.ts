/**
 * One step of a run as a child process (git, npm, a pre-run command, the CLI): its output goes line by line to the
 * run's log, and an abort stops it and everything it started.
 */
import { spawn } from 'node:child_process';

/** What a step left behind: its exit code (`null` when a signal ended it) and its last lines, for the failure. */
export interface StepResult {
  code: number | null;
  lastLines: string[];
}

export interface StepOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Receives each line the step prints (stdout and stderr, as they come). */
  onLine(line: string): void;
  /** Stops the step: SIGTERM to its process group, SIGKILL `killAfterMs` later if it is still there. */
  signal: AbortSignal;
  killAfterMs?: number;
}

const KEPT_LINES = 40;

/** Runs `command args…` in its own process group, so stopping it stops the plugins and programs it started too. */
export function runStep(command: string, args: readonly string[], options: StepOptions): Promise<StepResult> {
  return new Promise((resolve) => {
    const lastLines: string[] = [];
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const emit = (line: string) => {
      lastLines.push(line);
      if (lastLines.length > KEPT_LINES) lastLines.shift();
      options.onLine(line);
    };
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) emit(line.replace(/\r$/, ''));
      });
      stream.on('end', () => {
        if (partial) emit(partial);
        partial = '';
      });
    }
    const signalGroup = (name: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, name);
      } catch {
        // Already gone.
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), options.killAfterMs ?? 5_000);
      killTimer.unref();
    };
    if (options.signal.aborted) stop();
    else options.signal.addEventListener('abort', stop, { once: true });
    let settled = false;
    const settle = (code: number | null) => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', stop);
      clearTimeout(killTimer);
      resolve({ code, lastLines });
    };
    child.on('error', (error) => {
      emit(`${command}: ${error.message}`);
      settle(-1);
    });
    child.on('close', (code) => {
      // Whatever the step left running in its group (a plugin that outlived it) goes with it.
      signalGroup('SIGKILL');
      settle(code);
    });
  });
}
