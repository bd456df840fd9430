/**
 * The runner's side of a deployment run (docs/deployments.md): claiming a run, the token scoped to it, the claim's
 * heartbeat, the log, the result, and recovering a run whose runner was lost. The process work (clone, install, the
 * CLI) is the runner module's (functions/runner/); this is what it asks of storage.
 *
 * Timeline of a claim: `claim` (claimedUntil = now + claimMs) → `heartbeat` every few seconds moves claimedUntil on
 * → `finish`. A runner that dies stops heartbeating; once claimedUntil passes, `recoverLost` of any runner takes the
 * run over with one conditional write (DeploymentStore.claimLost) and records it failed ("runner lost"), as Pulumi
 * Cloud fails a deployment whose agent stops reporting; the update it left is cancelled and its token revoked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatEnvironmentRef, formatStackRef, validateEnvironmentRef } from '../names.js';
import { importRef } from '../environments/evaluation.js';
import { deploymentTokenOwner, type TokenRecord } from '../../ports/identity-store.js';
import type { DeploymentRun } from '../../ports/deployment-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { API_TOKEN_PREFIX, hashApiToken } from '../identity/identity-service.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { postPullRequestResult } from '../push-webhooks/result-post.js';
import { cancelUpdate } from '../updates/settling.js';
import { openGitAuth, type GitAuth } from './git-auth.js';
import { driftRunOf, recordRemediation, removeDestroyedStack } from './run-aftermath.js';
import { gitSource, openSettingsSecrets } from './settings.js';
import { archiveSource, type ArchiveSource } from './source-archives.js';
import { isFinished } from './views.js';

/** A git repository a run's program is cloned from (`sourceContext.git`). */
export interface GitRunSource {
  repoUrl: string;
  branch?: string;
  commit?: string;
  repoDir?: string;
}

/** Where a run's program comes from: a git repository, or an archive uploaded with the run (source-archives.ts). */
export type RunSource = GitRunSource | { archive: ArchiveSource };

/** The source of a run's settings, or `undefined` when they name none. */
export function runSource(settings: Record<string, unknown>): RunSource | undefined {
  const archive = archiveSource(settings);
  return archive ? { archive } : gitSource(settings);
}

/** A run a runner holds, with what it needs to run it: never stored, never logged. */
export interface ClaimedRun {
  run: DeploymentRun;
  /** The run's own API token (plaintext, only in the runner's memory): its stack's operations, until the run ends. */
  token: string;
  /** `operationContext.environmentVariables`, secret ones opened. */
  environment: Record<string, string>;
  source: RunSource;
  /** `sourceContext.git.gitAuth`, opened: the credential the clone uses, and nothing else. */
  gitAuth?: GitAuth;
  preRunCommands: string[];
  /** `operationContext.options.skipInstallDependencies`: no `npm ci`. */
  skipInstallDependencies: boolean;
  /** `operationContext.options.remediateIfDriftDetected` of a `detect-drift` run: remediate the drift found. */
  remediateIfDriftDetected: boolean;
  /** `operationContext.options.deleteAfterDestroy` of a `destroy` run: remove the stack once it is destroyed. */
  deleteAfterDestroy: boolean;
}

/** How a run ended, as the runner saw it. */
export interface RunOutcome {
  status: 'succeeded' | 'failed';
  /** Why it failed, in a sentence: `clone failed: …`, `install failed: …`, the update's own error. */
  failure?: string;
}

/** Claim length and token lifetime; tests shorten the claim to see a lost runner recovered quickly. */
export interface RunnerOptions {
  /** How long a claim lasts without a heartbeat (default 60 s). */
  claimMs?: number;
  /** The longest a run's token lives, whatever happens to the run (default 6 h). */
  tokenMs?: number;
}

/** The run changed hands: another runner recovered it, so this one must stop working on it. */
export class RunLostError extends ConflictError {}

/** What a runner asks of the service. */
export interface RunnerService {
  /** How long a claim lasts without a heartbeat. */
  readonly claimMs: number;
  /** One run whose runner was lost, now recorded `failed` ("runner lost …"); `undefined` when there is none. */
  recoverLost(runner: string): Promise<DeploymentRun | undefined>;
  /** The oldest queued run, now `running` for `runner`, with a token minted for it; `undefined` when none is queued. */
  claim(runner: string): Promise<ClaimedRun | undefined>;
  /** Moves the claim on; returns the run as stored (`cancelRequested` shows a cancel). `RunLostError` once lost. */
  heartbeat(runner: string, run: DeploymentRun): Promise<DeploymentRun>;
  /** Appends lines to the run's log. */
  log(run: DeploymentRun, lines: readonly string[]): Promise<void>;
  /** Cancels the run's updates still running, as `stackyard cancel` does (their clients stop at their next call). */
  cancelUpdates(run: DeploymentRun): Promise<void>;
  /** Whether the drift run this `detect-drift` run made found drift (false when none was recorded). */
  driftFound(run: DeploymentRun): Promise<boolean>;
  /** Records the run's remediation update on its drift run (run-aftermath.ts). */
  recordRemediation(run: DeploymentRun): Promise<void>;
  /** Removes the stack this `destroy` run emptied (run-aftermath.ts). */
  removeStack(run: DeploymentRun): Promise<void>;
  /**
   * Fixes the ESC environments the run's token may open: those the stack's `Pulumi.<stack>.yaml` imports
   * (`[project/]env[@version]`), read right after the clone. Once only: a second call (the program holding the
   * token, trying to widen it) is refused.
   */
  declareEnvironments(runner: string, run: DeploymentRun, names: readonly string[]): Promise<void>;
  /** The program archive the run was queued with, checked against its SHA-256 (a run with a git source has none). */
  sourceArchive(run: DeploymentRun): Promise<Uint8Array>;
  /** Records the result and revokes the run's token. */
  finish(runner: string, run: DeploymentRun, outcome: RunOutcome): Promise<DeploymentRun>;
}

const DEFAULT_CLAIM_MS = 60_000;
const DEFAULT_TOKEN_MS = 6 * 3_600_000;

const tokenId = (run: DeploymentRun) => `run-${run.id}`;

/** Who a run acts as: the user who queued it, holding only the run's token (authorization.ts limits what it may do). */
function runPrincipal(run: DeploymentRun): Principal {
  return {
    login: run.requestedBy,
    orgs: [run.org],
    admin: false,
    roles: {},
    token: { id: tokenId(run), kind: 'deployment', org: run.org, stackId: run.stackId, runId: run.id, description: `deployment ${run.version}` },
  };
}

export function createRunnerService(deps: ServiceDeps, options: RunnerOptions = {}): RunnerService {
  const store = () => deps.storage.deployments;
  const claimMs = options.claimMs ?? DEFAULT_CLAIM_MS;
  const tokenMs = options.tokenMs ?? DEFAULT_TOKEN_MS;

  /** Applies `change` to the run as stored, while `runner` still holds it, retrying when another write came first. */
  async function mutate(runner: string, run: DeploymentRun, change: (latest: DeploymentRun) => Partial<DeploymentRun>): Promise<DeploymentRun> {
    for (;;) {
      const latest = await store().getRun(run.stackId, run.id);
      if (!latest || latest.claimedBy !== runner || isFinished(latest)) {
        throw new RunLostError(`Deployment ${run.version} of ${run.org}/${run.project}/${run.stack} is no longer this runner's.`);
      }
      const next = { ...latest, ...change(latest), modified: deps.now(), revision: latest.revision + 1 };
      try {
        return await store().updateRun(next, latest.revision);
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }

  async function mintToken(run: DeploymentRun): Promise<string> {
    const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = deps.now();
    const record: TokenRecord = {
      id: tokenId(run),
      tokenHash: hashApiToken(token),
      login: deploymentTokenOwner(run.org, run.id),
      description: `deployment ${run.version} of ${run.org}/${run.project}/${run.stack}`,
      createdAt: now,
      expiresAt: now + tokenMs,
      kind: 'deployment',
      org: run.org,
      stackId: run.stackId,
      runId: run.id,
      createdBy: run.requestedBy,
    };
    await deps.storage.identity.putToken(record);
    return token;
  }

  async function revokeToken(run: DeploymentRun): Promise<void> {
    await deps.storage.identity.revokeToken(deploymentTokenOwner(run.org, run.id), tokenId(run)).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }

  async function stackOf(run: DeploymentRun): Promise<StackRecord | undefined> {
    return deps.storage.stacks.getById(run.stackId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
  }

  async function cancelUpdates(run: DeploymentRun): Promise<void> {
    const stack = await stackOf(run);
    if (!stack) return;
    const latest = (await store().getRun(run.stackId, run.id)) ?? run;
    for (const { updateId } of latest.updates) {
      const update = await deps.storage.updates.get(stack.id, updateId).catch(() => undefined);
      if (!update || update.status === 'succeeded' || update.status === 'failed' || update.status === 'cancelled') continue;
      await cancelUpdate(deps, runPrincipal(run), stack, updateId).catch((error: unknown) => {
        // Ended between the read and the cancel: nothing left to stop.
        if (!(error instanceof ConflictError)) throw error;
      });
    }
  }

  async function finish(runner: string, run: DeploymentRun, outcome: RunOutcome): Promise<DeploymentRun> {
    const saved = await mutate(runner, run, (latest) => ({
      status: outcome.status,
      ...(outcome.failure ? { failure: outcome.failure.slice(0, 2000) } : {}),
      ...(latest.cancelRequested && outcome.status === 'failed' && !outcome.failure ? { failure: 'cancelled' } : {}),
    }));
    await revokeToken(run);
    // After the result is stored: posting it back to a pull request never changes how the run ended.
    await postPullRequestResult(deps, saved);
    return saved;
  }

  return {
    claimMs,

    async recoverLost(runner) {
      const now = deps.now();
      const lost = await store().claimLost(runner, now, now + claimMs);
      if (!lost) return undefined;
      const failure = `runner lost: the runner stopped reporting before the ${lost.operation} ended`;
      await store().appendLog(lost.id, [{ timestamp: now, line: `${failure}; ${runner} records the run as failed.` }]);
      await cancelUpdates(lost);
      return finish(runner, lost, { status: 'failed', failure });
    },

    async claim(runner) {
      const now = deps.now();
      const claimed = await store().claimNext(runner, now, now + claimMs);
      if (!claimed) return undefined;
      const stack = await stackOf(claimed);
      const source = runSource(claimed.settings);
      if (!stack || !source) {
        await finish(runner, claimed, { status: 'failed', failure: stack ? 'the run has no source' : `the stack ${claimed.org}/${claimed.project}/${claimed.stack} no longer exists` });
        return undefined;
      }
      const brief = await runBrief(deps, stack, claimed);
      const token = await mintToken(claimed);
      const run = await mutate(runner, claimed, () => ({ status: 'running' }));
      return { ...brief, run, token };
    },

    heartbeat(runner, run) {
      return mutate(runner, run, () => ({ claimedUntil: deps.now() + claimMs }));
    },

    async log(run, lines) {
      const now = deps.now();
      await store().appendLog(run.id, lines.map((line) => ({ timestamp: now, line })));
    },

    cancelUpdates,
    async driftFound(run) {
      return (await driftRunOf(deps, run))?.driftDetected === true;
    },
    async declareEnvironments(runner, run, names) {
      const environments = runEnvironmentNames(run, names);
      await mutate(runner, run, (latest) => {
        if (latest.environments !== undefined) {
          throw new ForbiddenError(`Deployment ${run.version}'s environments were fixed when it cloned its source; they cannot change.`);
        }
        return { environments };
      });
    },
    recordRemediation: (run) => recordRemediation(deps, run),
    removeStack: (run) => removeDestroyedStack(deps, run),
    sourceArchive: (run) => readRunArchive(deps, run),
    finish,
  };
}

/**
 * What a runner needs to run `run` besides its token: the source, the environment (secret values opened), the
 * pre-run commands and options. Only for the run's runner: never stored, never logged.
 */
export async function runBrief(deps: ServiceDeps, stack: StackRecord, run: DeploymentRun): Promise<Omit<ClaimedRun, 'token'>> {
  const source = runSource(run.settings);
  if (!source) throw new ConflictError(`Deployment ${run.version} of ${runStackName(run)} has no source.`);
  const environment = await openSettingsSecrets(deps.keys, stack, run.settings);
  const gitAuth = await openGitAuth(deps.keys, stack, run.settings);
  const operation = (run.settings.operationContext ?? {}) as { preRunCommands?: string[]; options?: Record<string, unknown> };
  const skipInstallDependencies = operation.options?.skipInstallDependencies === true;
  const remediateIfDriftDetected = run.operation === 'detect-drift' && operation.options?.remediateIfDriftDetected === true;
  const deleteAfterDestroy = run.operation === 'destroy' && operation.options?.deleteAfterDestroy === true;
  return { run, environment, source, ...(gitAuth ? { gitAuth } : {}), preRunCommands: operation.preRunCommands ?? [], skipInstallDependencies, remediateIfDriftDetected, deleteAfterDestroy };
}

/** The most environments one stack's config may import for a run. */
const MAX_RUN_ENVIRONMENTS = 50;

/** `org/project/name` of each environment a stack's config names, in the run's organization (as the CLI resolves them). */
function runEnvironmentNames(run: DeploymentRun, names: readonly string[]): string[] {
  if (names.length > MAX_RUN_ENVIRONMENTS) throw new InvalidInputError(`A stack may import at most ${MAX_RUN_ENVIRONMENTS} environments for a run.`);
  return [
    ...new Set(
      names.map((name) => {
        const parsed = typeof name === 'string' ? importRef(run.org, name) : undefined;
        if (!parsed) throw new InvalidInputError(`'${String(name).slice(0, 120)}' is not an environment name: write it as env or project/env.`);
        return formatEnvironmentRef(validateEnvironmentRef(parsed.ref));
      }),
    ),
  ];
}

/** `org/project/stack` of a run, as the CLI's `--stack` takes it. */
export function runStackName(run: DeploymentRun): string {
  return formatStackRef({ org: run.org, project: run.project, stack: run.stack });
}

/** The run's uploaded archive, as its SHA-256 names it: a missing or different one is a `ConflictError` saying so. */
async function readRunArchive(deps: ServiceDeps, run: DeploymentRun): Promise<Uint8Array> {
  const source = archiveSource(run.settings);
  if (!source) throw new ConflictError(`Deployment ${run.version} of ${runStackName(run)} has no uploaded archive: its source is a git repository.`);
  const archive = await deps.storage.sourceArchives.getArchive(run.stackId, source.id);
  if (!archive) throw new ConflictError(`the program archive ${source.id} of deployment ${run.version} is gone (removed with its stack, or past its retention)`);
  if (createHash('sha256').update(archive).digest('hex') !== source.sha256) {
    throw new ConflictError(`the program archive ${source.id} of deployment ${run.version} is not the one it was queued with (its SHA-256 differs)`);
  }
  return archive;
}
