/**
 * One engine run: preview or update (runs the program), destroy and refresh (without the program, unless asked to run
 * it: `runProgram`). Loads the base state,
 * serves the program, drives providers, persists after every mutating step, and reports the outcome. Success is the
 * engine's own verdict: a program can exit 0 after a step failed.
 */
import { PluginAcquirer } from '../plugins/acquire.js';
import { nodeRequiredPlugins, statePlugins } from '../plugins/required.js';
import { BuiltinProvider, type StackReader } from './plugins/providers/builtin-provider.js';
import {
  DeploymentSerializer,
  loadDeployment,
  type Checkpoint,
  type JournalPersister,
  type PendingOperation,
  type ResourceState,
  type SecretsCrypter,
  type SnapshotPersister,
  type UntypedDeployment,
} from './state/deployment.js';
import type { ChangeSummary, EngineEvents } from './display/events.js';
import { programLocation, providerEnv, type ProgramSpec } from './program/language-host.js';
import { runNodeProgram } from './program/node-program-run.js';
import type { StackConfig } from './config/program-config.js';
import { runThroughLanguagePlugin } from './program/language-plugin-run.js';
import type { ProjectPlugin } from './plugins/plugin-discovery.js';
import { ProgramHost } from './program/program-host.js';
import type { ProviderTimeouts } from './plugins/providers/provider-client.js';
import { ProviderRegistry } from './plugins/providers/provider-registry.js';
import type { PropertyMap } from './resource/properties.js';
import { SnapshotManager } from './state/snapshot-manager.js';
import { StepExecutor, type PlannedImport } from './steps/step-executor.js';
import { protectedExcludes, type TargetOptions } from './steps/targeting.js';
import { createUrn, STACK_TYPE } from './resource/urn.js';
import { ResourceHookRegistry } from './program/resource-hooks.js';
import { DELETE_HOOKS_WITHOUT_PROGRAM, deleteHooksWithoutProgram } from './steps/resource-hooks.js';
import { PlanRun } from './plans/plan-run.js';
import type { DeploymentPlan, ResourcePlan } from './plans/plan-types.js';
import type { ExecutorOptions } from './steps/step-types.js';
import { PolicyPacks, type PolicyPackSpec } from './plugins/analyzers/policy-packs.js';
import type { PolicyPackRun } from './display/policy-events.js';
import { finishPolicies } from './steps/policy-run.js';

/** What to do. `preview` is a dry run of `update`; `dryRun` previews a destroy, refresh or import. */
export type DeploymentKind = 'preview' | 'update' | 'destroy' | 'refresh' | 'import';

/** Inputs of a run. */
export interface DeploymentOptions {
  kind: DeploymentKind;
  /** Preview a destroy or refresh (no provider changes, nothing saved). */
  dryRun?: boolean;
  program: ProgramSpec;
  config: StackConfig;
  /** The resources `import` adopts (`kind: 'import'`). */
  imports?: readonly PlannedImport[];
  /** The stack's current state as exported (`undefined` for a new stack). */
  base: UntypedDeployment | undefined;
  crypter: SecretsCrypter;
  /** Receives checkpoints; omitted for previews. */
  persister?: SnapshotPersister;
  /** Receives journal entries instead of checkpoints; takes precedence over `persister`. Unused for previews. */
  journal?: JournalPersister;
  events?: EngineEvents;
  /** Concurrent steps (default 16). */
  parallel?: number;
  /** `--target`, `--target-dependents`, `--exclude`, `--exclude-dependents`, `--replace` (Pulumi's semantics). */
  targeting?: TargetOptions;
  /**
   * `refresh|destroy --run-program`: the program runs, so providers get the configuration it gives them now, and the
   * run takes Pulumi's refresh or destroy steps for what it registers (steps/program-modes.ts).
   */
  runProgram?: boolean;
  /** `destroy --exclude-protected`: protected resources and what they depend on are left alone. */
  excludeProtected?: boolean;
  /** `--continue-on-error`: a failed step skips only what depends on it; the run still fails. */
  continueOnError?: boolean;
  /** `up --plan`: the update (and its preview) may only take the operations this plan allows. */
  plan?: DeploymentPlan;
  /** `preview --save-plan`: record the plan of this run (`DeploymentResult.resourcePlans`). */
  recordPlan?: boolean;
  env?: NodeJS.ProcessEnv;
  projectPlugins?: ProjectPlugin[];
  readStack?: StackReader;
  timeouts?: ProviderTimeouts;
  now?: () => number;
  /** Minimum spacing of saves (default 20 ms for checkpoints, none for journal entries); mutations within it share a save. */
  minSaveIntervalMs?: number;
  /**
   * Stops the run gracefully: steps already talking to a provider finish and are saved, nothing new starts, no
   * deletes run, and the program gets SIGINT once the steps in progress are done.
   */
  signal?: AbortSignal;
  /**
   * Install missing plugins the run needs (default true; `PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION` still turns
   * it into an error naming the install command).
   */
  acquirePlugins?: boolean;
  /** `--skip-plugin-pre-install`: no acquisition before the first step; a missing plugin is still acquired at launch. */
  skipPluginPreInstall?: boolean;
  /** One line per plugin download (start and finish). */
  pluginProgress?: (line: string) => void;
  /** The User-Agent of plugin downloads. */
  userAgent?: string;
  /** `--logflow`: `--logtostderr` and `-v=<level>` for every plugin started (`plugins/plugin-logging.ts`). */
  pluginLoggingArgs?: readonly string[];
  /** `--policy-pack` (with `--policy-pack-config` at the same position): packs run on a preview or update. */
  policyPacks?: readonly PolicyPackSpec[];
  /** The stack's tags, which the packs see (ConfigureStack's `tags`). */
  stackTags?: Record<string, string>;
}

/** The base state holds operations an interrupted run left unfinished; only `refresh` may run on it. */
export class PendingOperationsError extends Error {
  override readonly name = 'PendingOperationsError';
  constructor(readonly operations: readonly (Pick<PendingOperation, 'type'> & { resource: { urn: string } })[]) {
    const noun = operations.length === 1 ? 'operation' : 'operations';
    super(
      `the stack has ${operations.length} pending ${noun} left by an update that was interrupted:\n` +
        operations.map((o) => `    ${o.type} ${o.resource.urn}\n`).join('') +
        'These resources may or may not exist in the cloud. Run `stackyard refresh` to resolve them (interrupted updates ' +
        'and deletes are read back from their provider; interrupted creates are cleared with a warning naming what to ' +
        'check by hand), or `stackyard state repair` to clear them without looking.',
    );
  }
}

/** Outcome of a run. */
export interface DeploymentResult {
  ok: boolean;
  errors: string[];
  summary: ChangeSummary;
  /** Stack outputs after the run. */
  outputs: PropertyMap;
  /** The last checkpoint saved (not for dry runs, nor when saving to a journal). */
  checkpoint?: Checkpoint;
  resourceCount: number;
  /** The run was stopped through `signal`: not a failure of its own. */
  cancelled: boolean;
  /** With `recordPlan`: each resource's plan, by URN. */
  resourcePlans?: Map<string, ResourcePlan>;
  /** The policy packs that ran (the summary event's `PolicyPacks`). */
  policyPacks?: PolicyPackRun[];
}

/** Runs one deployment. */
export async function runDeployment(opts: DeploymentOptions): Promise<DeploymentResult> {
  const now = opts.now ?? Date.now;
  const events = opts.events ?? {};
  const dryRun = opts.kind === 'preview' || opts.dryRun === true;
  const base = await loadDeployment(opts.base, opts.crypter);
  if (opts.kind !== 'refresh' && base.pendingOperations.length) throw new PendingOperationsError(base.pendingOperations);
  const programMode = runsProgram(opts);
  const serializer = new DeploymentSerializer(opts.crypter);
  let lastCheckpoint: Checkpoint | undefined;
  const persister: SnapshotPersister | undefined =
    dryRun || !opts.persister
      ? undefined
      : {
          save: async (c) => {
            lastCheckpoint = c;
            await opts.persister!.save(c);
          },
        };
  const journal = dryRun || !opts.journal ? undefined : { persister: opts.journal, base: opts.base?.deployment };
  // A checkpoint is the whole state, so checkpoint saves are spaced out; a journal save sends only what changed, and
  // the mutations made while one is on the wire already share the next, so journal saves follow each other at once.
  const saveInterval = opts.minSaveIntervalMs ?? (journal ? 0 : 20);
  const snapshots = new SnapshotManager(base, serializer, journal ? undefined : persister, now, saveInterval, journal);
  const env = opts.env ?? process.env;
  // an import runs no program: its main file need not exist yet
  const { programDir } = opts.kind === 'import' ? { programDir: opts.program.rootDir } : programLocation(opts.program);
  const acquirer = new PluginAcquirer({
    env,
    projectPlugins: opts.projectPlugins,
    projectDir: opts.program.rootDir,
    progress: opts.pluginProgress,
    userAgent: opts.userAgent,
  });
  if (opts.acquirePlugins !== false && !opts.skipPluginPreInstall) {
    // Before the first step, as Pulumi does: what the program's packages declare and what the state's providers use.
    // A language plugin names the program's plugins itself, once it runs (runThroughLanguagePlugin).
    const programPlugins = programMode !== undefined && !opts.program.runtime ? nodeRequiredPlugins(programDir) : [];
    await acquirer.ensureAll([...programPlugins, ...statePlugins(base.resources)]);
  }
  const hooks = new ResourceHookRegistry();
  const planRun = new PlanRun(opts.plan, opts.recordPlan === true);
  const plan = planRun.active && (opts.kind === 'preview' || opts.kind === 'update') ? planRun : undefined;
  let executor: StepExecutor | undefined;
  const builtins = new BuiltinProvider(opts.readStack, (urn) => executor?.lookup(urn));
  let host: ProgramHost | undefined;
  const registry = new ProviderRegistry({
    discovery: { programDir, projectPlugins: opts.projectPlugins, projectDir: opts.program.rootDir, env },
    acquirer: opts.acquirePlugins === false ? undefined : acquirer,
    onWarning: (message) => events.diag?.({ severity: 'warning', message }),
    engineAddress: () => host!.address,
    rootDir: opts.program.rootDir,
    env,
    timeouts: opts.timeouts,
    builtins,
    onLog: (pkg, line) => events.diag?.({ severity: 'debug', message: `[${pkg}] ${line}` }),
    pluginEnv: (pkg) => providerEnv(pkg, opts.program, opts.config),
    loggingArgs: opts.pluginLoggingArgs,
  });
  const exOptions: ExecutorOptions = {
    stack: opts.program.stack,
    project: opts.program.project,
    preview: dryRun,
    parallel: opts.parallel ?? 16,
    config: opts.config,
    registry,
    snapshots,
    base,
    events,
    targeting: targetingOf(opts, base.resources),
    continueOnError: opts.continueOnError,
    hooks,
    programMode: programMode === 'update' ? undefined : programMode,
    plan,
  };
  const ex = new StepExecutor(exOptions);
  executor = ex;
  let postStepsRan = false;
  const runPostSteps = async () => {
    if (postStepsRan || ex.stopped || host?.programErrored) return;
    postStepsRan = true;
    await ex.afterProgram();
  };
  host = new ProgramHost({
    executor: ex,
    events,
    onShutdown: runPostSteps,
    rootDir: opts.program.rootDir,
    hooks,
    componentInfo: {
      project: opts.program.project,
      stack: opts.program.stack,
      organization: opts.program.organization ?? 'organization',
      config: opts.config,
      dryRun,
      parallel: opts.parallel ?? 16,
    },
  });
  await host.start();
  let packs: PolicyPacks | undefined;
  const onAbort = () => ex.cancel();
  if (opts.signal?.aborted) ex.cancel();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (opts.kind === 'destroy' && opts.excludeProtected && opts.targeting?.targets?.length) {
      ex.fail(undefined, new Error('you cannot specify --target and --exclude-protected'));
    } else if (opts.kind === 'import') {
      await ex.importAll(opts.imports ?? []);
    } else if (programMode === undefined) {
      if (opts.kind === 'refresh') await ex.refreshAll();
      else if (!refuseDeleteHooksWithoutProgram(base.resources, ex, events)) await ex.deleteAll(ex.allBase()).catch(() => undefined);
    } else if (programMode === 'update' && opts.policyPacks?.length && !(packs = await startPacks(opts, host, dryRun, env, events, ex))) {
      // the packs did not start (the error is reported): nothing runs
    } else if (ex.verifyTargets(false, 'replaces')) {
      if (programMode === 'refresh') ex.resolvePending();
      // the packs see each registration from now on
      exOptions.policies = packs;
      const outcome = opts.program.runtime
        ? await runThroughLanguagePlugin({ ...opts, program: { ...opts.program, runtime: opts.program.runtime } }, host, ex, dryRun, events, acquirer)
        : await runNodeProgram(opts, host, ex, dryRun, events);
      // a program stopped because the run was cancelled has not failed on its own
      if (outcome && !ex.cancelled) ex.fail(undefined, outcome);
      else if (!outcome && !host.shutdownSignalled) await runPostSteps();
      await ex.idle();
      // a destroy deleted the stack with everything else
      if (programMode !== 'destroy') ex.finalizeStackOutputs(ex.failed || host.programErrored || outcome !== undefined);
      await ex.idle();
      // as Pulumi: only a run that went well is told of planned operations it never took
      if (opts.plan && plan && !ex.failed && !host.programErrored) {
        for (const message of plan.unfulfilled(new Set(base.resources.map((r) => r.urn)))) ex.fail(undefined, new Error(message));
      }
      if (packs) await finishPolicies(packs, ex, host.programErrored, host.rootUrn);
    }
    await ex.idle();
    if (!dryRun) await snapshots.saveFinal().catch((err: unknown) => void ex.fail(undefined, err));
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await packs?.close();
    await registry.closeAll();
    await host.stop();
  }
  const snap = snapshots.snapshot();
  const stack = dryRun ? ex.lookup(host.rootUrn) : snap.resources.find((r) => r.type === STACK_TYPE && !r.delete);
  const ok = !ex.failed && !host.programErrored;
  if (!ok && ex.errors.length === 0) ex.errors.push(ex.cancelled ? 'the operation was cancelled' : 'the program reported an error');
  return {
    ok,
    errors: ex.errors,
    summary: ex.summary,
    outputs: stack?.outputs ?? {},
    checkpoint: lastCheckpoint,
    resourceCount: snap.resources.length,
    cancelled: ex.cancelled,
    resourcePlans: plan?.recorded,
    policyPacks: packs?.runs() ?? [],
  };
}

/**
 * As Pulumi's destroy: delete hooks are callbacks into the program, so a destroy that does not run it refuses a state
 * that binds any, naming each resource's hooks. True when refused.
 */
function refuseDeleteHooksWithoutProgram(base: readonly ResourceState[], ex: StepExecutor, events: EngineEvents): boolean {
  const bound = deleteHooksWithoutProgram(base);
  for (const r of bound) events.diag?.({ severity: 'error', urn: r.urn, message: DELETE_HOOKS_WITHOUT_PROGRAM.resource(r.hooks) });
  if (bound.length) ex.fail(undefined, new Error(DELETE_HOOKS_WITHOUT_PROGRAM.run));
  return bound.length > 0;
}

/** Whether and how the run uses the program: always for a preview or update, for refresh and destroy on request. */
function runsProgram(opts: DeploymentOptions): 'update' | 'refresh' | 'destroy' | undefined {
  if (opts.kind === 'preview' || opts.kind === 'update') return 'update';
  if (opts.kind === 'refresh' || opts.kind === 'destroy') return opts.runProgram ? opts.kind : undefined;
  return undefined;
}

/** Starts the run's packs; a pack that fails to start fails the run (reported through `ex`), and none is kept. */
async function startPacks(opts: DeploymentOptions, host: ProgramHost, dryRun: boolean, env: NodeJS.ProcessEnv, events: EngineEvents, ex: StepExecutor): Promise<PolicyPacks | undefined> {
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [k, v] of Object.entries(opts.config)) {
    config[k] = v.value;
    if (v.secret) secretKeys.push(k);
  }
  try {
    return await PolicyPacks.start(opts.policyPacks ?? [], {
      engineAddress: host.address,
      // the program has not registered its stack yet: its URN is the one it will register
      stackUrn: createUrn(opts.program.stack, opts.program.project, '', STACK_TYPE, `${opts.program.project}-${opts.program.stack}`),
      env,
      events,
      launchMs: opts.timeouts?.launchMs,
      callMs: opts.timeouts?.callMs,
      settings: { organization: opts.program.organization ?? 'organization', project: opts.program.project, stack: opts.program.stack, dryRun, config, configSecretKeys: secretKeys, tags: opts.stackTags },
      onLog: (line) => events.diag?.({ severity: 'debug', message: `[policy] ${line}` }),
    });
  } catch (err) {
    ex.fail(undefined, err);
    return undefined;
  }
}

/** The run's constraints; `--exclude-protected` becomes exclusions computed from the base state (as Pulumi's CLI does). */
function targetingOf(opts: DeploymentOptions, base: readonly ResourceState[]): TargetOptions | undefined {
  if (!opts.excludeProtected) return opts.targeting;
  return { ...opts.targeting, excludes: [...(opts.targeting?.excludes ?? []), ...protectedExcludes(base)] };
}
