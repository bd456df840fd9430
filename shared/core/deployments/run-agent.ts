/**
 * A run's own side, for a runner that holds nothing but the run's token (a CodeBuild build on AWS): it reads what the
 * run needs, keeps the claim alive, appends the log, cancels its updates and records the result, each through the
 * API (functions/http/routes/deployment-runner.ts). The claim itself was taken by whoever started the runner (the
 * run launcher), under the name the run records in `claimedBy`; these calls act under that name, so they behave as
 * the RunnerService's own for that runner, and stop working once the run ends (its token is revoked then).
 */
import { ForbiddenError, NotFoundError } from '../errors.js';
import type { DeploymentRun } from '../../ports/deployment-store.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { createRunnerService, runBrief, type ClaimedRun, type RunOutcome, type RunnerOptions } from './runner-service.js';
import { isFinished } from './views.js';

/** What a run's token may ask of the service about its own run. */
export interface RunAgentService {
  /** The run with its source, environment (secrets opened) and options. */
  brief(principal: Principal, runId: string): Promise<Omit<ClaimedRun, 'token'>>;
  /** Moves the claim on; says whether a cancel was asked for. */
  heartbeat(principal: Principal, runId: string): Promise<{ cancelRequested: boolean }>;
  log(principal: Principal, runId: string, lines: readonly string[]): Promise<void>;
  cancelUpdates(principal: Principal, runId: string): Promise<void>;
  /** Whether the drift run this `detect-drift` run made found drift. */
  driftFound(principal: Principal, runId: string): Promise<{ driftFound: boolean }>;
  /** Records the run's remediation update on its drift run. */
  recordRemediation(principal: Principal, runId: string): Promise<void>;
  /** Removes the stack this `destroy` run (with `deleteAfterDestroy`) emptied. */
  removeStack(principal: Principal, runId: string): Promise<void>;
  /** Fixes, once, the environments the run's token may open (RunnerService.declareEnvironments). */
  declareEnvironments(principal: Principal, runId: string, names: readonly string[]): Promise<void>;
  /** The program archive the run was queued with (a run whose source is an uploaded archive). */
  sourceArchive(principal: Principal, runId: string): Promise<Uint8Array>;
  /** Records the result and revokes the run's token. */
  finish(principal: Principal, runId: string, outcome: RunOutcome): Promise<void>;
}

export function createRunAgentService(deps: ServiceDeps, options: RunnerOptions = {}): RunAgentService {
  const runner = createRunnerService(deps, options);

  /** The run the caller's token was minted for, while a runner holds it; anything else is refused. */
  async function ownRun(principal: Principal, runId: string): Promise<DeploymentRun & { claimedBy: string }> {
    const token = principal.token;
    if (token?.kind !== 'deployment' || token.runId !== runId || !token.stackId) {
      throw new ForbiddenError(`Only deployment ${runId.slice(0, 40)}'s own token may act as its runner.`);
    }
    const run = await deps.storage.deployments.getRun(token.stackId, runId);
    if (!run) throw new NotFoundError(`Deployment '${runId.slice(0, 40)}' not found.`);
    if (isFinished(run) || !run.claimedBy) throw new ForbiddenError(`Deployment ${run.version} is not running (${run.status}).`);
    return run as DeploymentRun & { claimedBy: string };
  }

  return {
    async brief(principal, runId) {
      const run = await ownRun(principal, runId);
      const stack = await deps.storage.stacks.getById(run.stackId);
      return runBrief(deps, stack, run);
    },
    async heartbeat(principal, runId) {
      const run = await ownRun(principal, runId);
      const latest = await runner.heartbeat(run.claimedBy, run);
      return { cancelRequested: latest.cancelRequested === true };
    },
    async log(principal, runId, lines) {
      await runner.log(await ownRun(principal, runId), lines);
    },
    async cancelUpdates(principal, runId) {
      await runner.cancelUpdates(await ownRun(principal, runId));
    },
    async driftFound(principal, runId) {
      return { driftFound: await runner.driftFound(await ownRun(principal, runId)) };
    },
    async recordRemediation(principal, runId) {
      await runner.recordRemediation(await ownRun(principal, runId));
    },
    async removeStack(principal, runId) {
      await runner.removeStack(await ownRun(principal, runId));
    },
    async declareEnvironments(principal, runId, names) {
      const run = await ownRun(principal, runId);
      await runner.declareEnvironments(run.claimedBy, run, names);
    },
    async sourceArchive(principal, runId) {
      return runner.sourceArchive(await ownRun(principal, runId));
    },
    async finish(principal, runId, outcome) {
      const run = await ownRun(principal, runId);
      await runner.finish(run.claimedBy, run, outcome);
    },
  };
}
