/**
 * A runner process (`stackyard serve` starts `--runners N` of them): recovers runs whose runner was lost, claims
 * queued runs one at a time and runs each (execute-run.ts), until it is told to stop or its serve goes away.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceDeps } from '../../shared/core/compose/index.js';
import { createRunnerService } from '../../shared/core/deployments/runner-service.js';
import { InvalidInputError } from '../../shared/core/errors.js';
import type { Storage } from '../../shared/ports/index.js';
import { executeRun, type RunContext } from './execute-run.js';

/** What a runner process is started with. */
export interface WorkerOptions {
  storage: Storage;
  /** The service the runs' CLI talks to. */
  serviceUrl: string;
  /** The bundled CLI's entry. */
  cli: string;
  /** STACKYARD_RUNNER_POLL_MS, STACKYARD_RUNNER_CLAIM_SECONDS, and the environment the runs' steps inherit. */
  env: NodeJS.ProcessEnv;
  /** Warnings (a storage failure between runs): the loop goes on. */
  warn(message: string): void;
}

const DEFAULT_POLL_MS = 1_000;
const DEFAULT_CLAIM_SECONDS = 60;

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!/^[0-9]{1,9}$/.test(text) || value < min || value > max) {
    throw new InvalidInputError(`${name} must be a whole number from ${min} to ${max}, not '${text.slice(0, 20)}'. Unset it for the default.`);
  }
  return value;
}

/**
 * The environment runs inherit: the runner's own (cloud credentials included: "whatever the serve process has"),
 * without any Stackyard or Pulumi credential or setting, so a run acts only with its own token.
 */
export function stepBaseEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('STACKYARD_') && !name.startsWith('PULUMI_')));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Runs the loop until `shutdown` aborts; the run under way is then stopped and recorded (runner stopped). */
export async function runWorker(options: WorkerOptions, shutdown: AbortSignal): Promise<void> {
  const pollMs = whole(options.env, 'STACKYARD_RUNNER_POLL_MS', DEFAULT_POLL_MS, 10, 600_000);
  const claimMs = whole(options.env, 'STACKYARD_RUNNER_CLAIM_SECONDS', DEFAULT_CLAIM_SECONDS, 1, 3_600) * 1_000;
  const runner = createRunnerService(serviceDeps(options.storage, { serviceUrl: options.serviceUrl }), { claimMs });
  const workRoot = mkdtempSync(join(tmpdir(), 'stackyard-runner-'));
  mkdirSync(workRoot, { recursive: true });
  const ctx: RunContext = {
    runner,
    name: `${hostname()}:${process.pid}`,
    serviceUrl: options.serviceUrl,
    cli: options.cli,
    workRoot,
    baseEnv: stepBaseEnv(options.env),
    heartbeatMs: Math.max(Math.floor(claimMs / 4), 100),
  };
  try {
    while (!shutdown.aborted) {
      try {
        while (!shutdown.aborted && (await runner.recoverLost(ctx.name))) {
          // Each recovered run is recorded as failed; look for another before taking new work.
        }
        const claimed = shutdown.aborted ? undefined : await runner.claim(ctx.name);
        if (claimed) await executeRun(ctx, claimed, shutdown);
        else await pause(pollMs, shutdown);
      } catch (error) {
        options.warn(`The runner could not take or record a run; it tries again: ${(error as Error).message}`);
        await pause(pollMs, shutdown);
      }
    }
  } finally {
    rmSync(workRoot, { recursive: true, force: true });
  }
}
