/**
 * The program phase of a run for a Node.js program, which the engine starts itself (`language-host.ts`) as
 * `pulumi-language-nodejs` would: the program's exit becomes the run's error, in Pulumi's words, and an
 * out-of-memory end says so (`out-of-memory.ts`).
 */
import type { EngineEvents } from '../display/events.js';
import type { StepExecutor } from '../steps/step-executor.js';
import type { StackConfig } from '../config/program-config.js';
import { launchProgram, type ProgramSpec } from './language-host.js';
import { nonZeroExitMessage, OutOfMemorySniffer } from './out-of-memory.js';
import type { ProgramHost } from './program-host.js';

/** What the program phase needs of a deployment's options (`DeploymentOptions` is one). */
export interface NodeRunOptions {
  program: ProgramSpec;
  config: StackConfig;
  env?: NodeJS.ProcessEnv;
  /** Stops the program once the steps in progress are done. */
  signal?: AbortSignal;
  /** Concurrent steps the program is told about (default 16). */
  parallel?: number;
}

/** Grace period for a program told to stop (SIGINT) before it is killed. */
const PROGRAM_STOP_GRACE_MS = 5_000;

/**
 * Runs the program to completion; returns an error message when it failed on its own. On `signal` the program is
 * stopped once the steps in progress are done (it may also stop by itself: the engine refuses its new steps).
 */
export async function runNodeProgram(opts: NodeRunOptions, host: ProgramHost, ex: StepExecutor, dryRun: boolean, events: EngineEvents): Promise<string | undefined> {
  const sniffer = new OutOfMemorySniffer();
  const child = launchProgram(opts.program, {
    monitorAddress: host.address,
    engineAddress: host.address,
    dryRun,
    parallel: opts.parallel ?? 16,
    config: opts.config,
    env: opts.env,
    onOutput: (stream, text) => {
      if (stream === 'stderr') sniffer.scan(text);
      events.programOutput?.(stream, text);
    },
  });
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = () =>
    void ex.idle().then(() => {
      child.kill('SIGINT');
      killTimer = setTimeout(() => child.kill('SIGKILL'), PROGRAM_STOP_GRACE_MS);
      killTimer.unref();
    });
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { code, signal } = await child.exited;
    // 32: the program already reported its error through the engine, or stopped because the run had failed (a
    // component's Construct or Call failing ends the program this way)
    if (code === 32) return host.programErrored || ex.stopped ? undefined : 'the program failed';
    if (code === 0) return undefined;
    if (sniffer.detected) return nonZeroExitMessage(code, true);
    return signal ? `the program was stopped by ${signal}` : nonZeroExitMessage(code, false);
  } finally {
    clearTimeout(killTimer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
