/**
 * The run launcher (AWS): for each notice on the run queue it claims the oldest queued run, mints the run's token,
 * seals it for the run (KMS) and starts one CodeBuild build that runs it (`stackyard runner --run <id>`, the
 * buildspec the CDK app synthesizes). The build then holds only that token; what the run needs it reads through the
 * API. A notice is a wake-up: runs are claimed in the store's order, so a notice delivered twice starts nothing twice.
 */
import type { RunnerService } from '../../shared/core/deployments/runner-service.js';
import type { DeploymentStore } from '../../shared/ports/deployment-store.js';
import type { RunNotice } from '../../shared/ports/run-queue.js';

/** The environment overrides a runner build gets: which run, and its token sealed for it. */
export const RUN_ID_VARIABLE = 'STACKYARD_RUN_ID';
export const SEALED_TOKEN_VARIABLE = 'STACKYARD_RUN_TOKEN_SEALED';

/** The name claims carry for runs handed to CodeBuild builds. */
export const LAUNCHER_RUNNER_NAME = 'codebuild';

/** Starts a runner build; answers its id. Errors are the build service's refusals. */
export interface BuildStarter {
  start(environment: Record<string, string>): Promise<string>;
}

/** What the launcher works with. */
export interface LauncherDeps {
  /** Built with a claim long enough for a build to be provisioned and send its first heartbeat. */
  runner: RunnerService;
  deployments: DeploymentStore;
  sealToken(runId: string, token: string): Promise<string>;
  builds: BuildStarter;
  log(message: string, fields: Record<string, unknown>): void;
}

/**
 * What became of a notice: a build started for a run, or nothing to do (the run was already taken), or the run is
 * still queued behind a live run of its stack (`waiting`: SQS hands the notice out again later).
 */
export type LaunchResult = { kind: 'started'; runId: string; buildId: string } | { kind: 'nothing' } | { kind: 'waiting' };

/** Handles one notice; a build that could not start fails its run, saying why. */
export async function launchRun(deps: LauncherDeps, notice: RunNotice): Promise<LaunchResult> {
  // A build that died stops heartbeating; its run is recorded failed here, as a lost runner on serve.
  while (await deps.runner.recoverLost(LAUNCHER_RUNNER_NAME)) {
    // One lost run recovered per call; look for another.
  }
  const claimed = await deps.runner.claim(LAUNCHER_RUNNER_NAME);
  if (!claimed) {
    const run = await deps.deployments.getRun(notice.stackId, notice.runId);
    return run?.status === 'not-started' ? { kind: 'waiting' } : { kind: 'nothing' };
  }
  const { run } = claimed;
  try {
    const sealed = await deps.sealToken(run.id, claimed.token);
    const buildId = await deps.builds.start({ [RUN_ID_VARIABLE]: run.id, [SEALED_TOKEN_VARIABLE]: sealed });
    deps.log('runner build started', { runId: run.id, version: run.version, buildId });
    await deps.runner.log(run, [`The run was handed to CodeBuild build ${buildId}.`]);
    return { kind: 'started', runId: run.id, buildId };
  } catch (error) {
    const failure = `the runner build could not start: ${(error as Error).message.slice(0, 500)}`;
    deps.log('runner build not started', { runId: run.id, failure });
    await deps.runner.finish(LAUNCHER_RUNNER_NAME, run, { status: 'failed', failure });
    return { kind: 'nothing' };
  }
}
