/**
 * Runs one claimed deployment run (docs/deployments.md): clone (or unpack) the source, `npm ci`, the pre-run commands, then the
 * bundled `stackyard` CLI with the operation, against the service, with the run's own token. Every line goes to the
 * run's log; the claim is kept alive meanwhile, and a cancel (or losing the claim, or the runner stopping) stops
 * the step under way. The result says why a run failed: `clone failed: …`, `install failed: …`, the update's error.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RunLostError, runStackName, type ClaimedRun, type RunnerService, type RunOutcome } from '../../shared/core/deployments/runner-service.js';
import type { DeploymentOperation, DeploymentRun } from '../../shared/ports/deployment-store.js';
import { checkoutSource } from './checkout.js';
import { operationArguments, operationNoun } from './operations.js';
import { stackEnvironmentNames } from './stack-environments.js';
import { StepFailed } from './step-failed.js';
import { runStep, type StepResult } from './step-process.js';

/** What a runner process brings to every run. */
export interface RunContext {
  runner: RunnerService;
  /** This runner's name in claims (`<host>:<pid>`). */
  name: string;
  /** The service the CLI talks to (serve's URL). */
  serviceUrl: string;
  /** The bundled CLI's entry (dist/cli/stackyard.mjs), run with this Node. */
  cli: string;
  /** This runner's folder: a workspace per run, and the CLI's home (plugins) shared by its runs. */
  workRoot: string;
  /** The environment steps start from (the runner's own, with no Stackyard or Pulumi credentials in it). */
  baseEnv: NodeJS.ProcessEnv;
  /** Pause between heartbeats (a third of the claim's length or less). */
  heartbeatMs: number;
}

/** Why a run stopped before its steps ended. */
type StopReason = 'cancelled' | 'lost' | 'shutdown';


/** The last line that reads as an error (`error: …`), else the last non-empty line. */
function reason(result: StepResult): string {
  const lines = result.lastLines.map((line) => line.trim()).filter(Boolean);
  const error = [...lines].reverse().find((line) => /^error:/i.test(line) || /^fatal:/.test(line) || /^npm (ERR!|error)/.test(line));
  return (error ?? lines.at(-1) ?? `exit code ${result.code}`).replace(/^(error|fatal):\s*/i, '');
}

/** Log lines are sent in batches, one write at a time, in order. */
function logSink(runner: RunnerService, run: DeploymentRun) {
  let pending: string[] = [];
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (pending.length === 0) return writing;
    const lines = pending;
    pending = [];
    writing = writing.then(() => runner.log(run, lines)).catch(() => undefined);
    return writing;
  };
  const timer = setInterval(flush, 250);
  return {
    line(line: string) {
      pending.push(line);
      if (pending.length >= 200) void flush();
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** Runs `claimed` to its end and records the outcome (unless another runner took the run over: `undefined`). */
export async function executeRun(ctx: RunContext, claimed: ClaimedRun, shutdown: AbortSignal): Promise<RunOutcome | undefined> {
  const { run } = claimed;
  const log = logSink(ctx.runner, run);
  const steps = new AbortController();
  let stopped: StopReason | undefined;
  const stop = (why: StopReason) => {
    stopped ??= why;
    steps.abort();
  };
  const onShutdown = () => stop('shutdown');
  shutdown.addEventListener('abort', onShutdown, { once: true });
  let heartbeats: Promise<void> = Promise.resolve();
  const heartbeat = setInterval(() => {
    heartbeats = heartbeats.then(async () => {
      try {
        const latest = await ctx.runner.heartbeat(ctx.name, run);
        if (latest.cancelRequested && !stopped) {
          log.line('The run was cancelled: cancelling its update and stopping.');
          await ctx.runner.cancelUpdates(run);
          stop('cancelled');
        }
      } catch (error) {
        if (error instanceof RunLostError) stop('lost');
      }
    });
  }, ctx.heartbeatMs);

  const workspace = mkdtempSync(join(ctx.workRoot, 'run-'));
  let outcome: RunOutcome;
  try {
    await runSteps(ctx, claimed, workspace, log.line, steps.signal);
    outcome = { status: 'succeeded' };
  } catch (error) {
    outcome = { status: 'failed', failure: error instanceof StepFailed ? error.message : `the runner failed: ${(error as Error).message}` };
  } finally {
    clearInterval(heartbeat);
    shutdown.removeEventListener('abort', onShutdown);
    await heartbeats;
    rmSync(workspace, { recursive: true, force: true });
  }
  if (stopped === 'cancelled') outcome = { status: 'failed', failure: 'cancelled: the run was cancelled while it ran' };
  if (stopped === 'shutdown') {
    log.line('The runner is stopping (serve shut down): cancelling the run.');
    await ctx.runner.cancelUpdates(run).catch(() => undefined);
    outcome = { status: 'failed', failure: 'runner stopped: the runner shut down before the run ended' };
  }
  log.line(outcome.status === 'succeeded' ? `The ${run.operation} succeeded.` : `The run failed: ${outcome.failure}`);
  await log.close();
  if (stopped === 'lost') return undefined;
  return ctx.runner.finish(ctx.name, run, outcome).then(
    () => outcome,
    (error: unknown) => {
      if (!(error instanceof RunLostError)) throw error;
      return undefined;
    },
  );
}

async function runSteps(ctx: RunContext, claimed: ClaimedRun, workspace: string, line: (line: string) => void, signal: AbortSignal): Promise<void> {
  const { run } = claimed;
  const stepEnv: NodeJS.ProcessEnv = {
    ...ctx.baseEnv,
    ...claimed.environment,
    // No prompt can be answered here, and git may only speak HTTP(S): no `ext::` or `file://` tricks from settings.
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'http:https',
    CI: 'true',
  };
  const step = async (what: string, command: string, args: string[], cwd: string, env = stepEnv) => {
    if (signal.aborted) throw new StepFailed(`${what}: stopped`);
    const result = await runStep(command, args, { cwd, env, onLine: line, signal });
    if (result.code !== 0) throw new StepFailed(`${what}: ${signal.aborted ? 'stopped' : reason(result)}`);
  };

  const project = await checkoutSource(ctx.runner, claimed, workspace, line, (what, command, args, cwd, env) => step(what, command, args, cwd, { ...stepEnv, ...env }));
  await declareEnvironments(ctx, run, project, line);

  if (!claimed.skipInstallDependencies && existsSync(join(project, 'package.json'))) {
    line('$ npm ci');
    await step('install failed', 'npm', ['ci', '--no-audit', '--no-fund'], project);
  }
  for (const command of claimed.preRunCommands) {
    line(`$ ${command}`);
    await step(`pre-run command failed: ${command.slice(0, 200)}`, 'sh', ['-c', command], project);
  }

  const home = join(ctx.workRoot, 'home');
  mkdirSync(home, { recursive: true });
  const cli = async (operation: DeploymentOperation) => {
    const args = operationArguments(operation, runStackName(run));
    line(`$ stackyard ${args.join(' ')}`);
    await step(`${operationNoun(operation)} failed`, process.execPath, [ctx.cli, ...args], project, {
      ...stepEnv,
      STACKYARD_HOME: home,
      STACKYARD_BACKEND_URL: ctx.serviceUrl,
      STACKYARD_ACCESS_TOKEN: claimed.token,
    });
  };
  await cli(run.operation);
  await afterOperation(ctx, claimed, line, () => cli('remediate-drift'));
}

/** Tells the service which environments the stack imports, before anything of the repository runs (stack-environments.ts). */
async function declareEnvironments(ctx: RunContext, run: DeploymentRun, project: string, line: (line: string) => void): Promise<void> {
  const names = stackEnvironmentNames(project, run.stack);
  if (names.length > 0) line(`The stack imports the environments ${names.join(', ')}: the run's token may open them.`);
  try {
    await ctx.runner.declareEnvironments(ctx.name, run, names);
  } catch (error) {
    if (error instanceof RunLostError) throw error;
    throw new StepFailed(`the stack's environments were refused: ${(error as Error).message}`);
  }
}

/** What the run's options ask for once its operation succeeded: remediating the drift found, removing the stack. */
async function afterOperation(ctx: RunContext, claimed: ClaimedRun, line: (line: string) => void, remediate: () => Promise<void>): Promise<void> {
  const { run } = claimed;
  if (claimed.remediateIfDriftDetected) {
    if (!(await ctx.runner.driftFound(run))) {
      line('No drift was detected: nothing to remediate.');
      return;
    }
    line('Drift was detected: remediating it with an update that refreshes first (remediateIfDriftDetected).');
    try {
      await remediate();
    } finally {
      await ctx.runner.recordRemediation(run);
    }
  }
  if (claimed.deleteAfterDestroy) {
    line(`The stack is destroyed: removing ${runStackName(run)} (deleteAfterDestroy).`);
    try {
      await ctx.runner.removeStack(run);
    } catch (error) {
      throw new StepFailed(`removing the stack failed: ${(error as Error).message}`);
    }
    line(`Removed the stack ${runStackName(run)}.`);
  }
}
