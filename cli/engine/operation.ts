/**
 * The flow behind `preview`, `up`, `destroy` and `refresh`, independent of where state lives: optional preview and
 * confirmation, the run itself on a backend session (lease, base state, checkpoints or journal, engine events,
 * completion), and the exit code. A backend (local, or the service over HTTP) supplies an `OperationBackend`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { ResourceState, UntypedDeployment } from './state/deployment.js';
import { colorEnabled, createDisplay } from './display/display.js';
import { createEngineEventLog, serviceEventLog, type EngineEvent, type OperationStatus } from './display/engine-events.js';
import { combineEvents, type ChangeSummary, type EngineEvents } from './display/events.js';
import { stderrLogEvents } from './display/stderr-log.js';
import { pluginLoggingArgs } from './plugins/plugin-logging.js';
import { protectedExcludes, type TargetOptions } from './steps/targeting.js';
import { describeLeaseHolder, waitForLease, type LeaseWaitOptions } from './lease-wait.js';
import { PluginAcquisitionError } from '../plugins/acquire.js';
import { OperationUsageError, type OperationBackend, type OperationCommand, type OperationFlags, type OperationRequest, type OperationSession } from './operation-types.js';
import { PolicyPackInstallError } from './plugins/analyzers/policy-packs.js';
import { PendingOperationsError, runDeployment, type DeploymentKind, type DeploymentResult } from './run-deployment.js';
import { loadPlan, originForSave, savePlan } from './plan-operation.js';
import { planManifest } from './plans/plan-file.js';
import type { DeploymentPlan } from './plans/plan-types.js';

export type { EngineEvent, OperationStatus } from './display/engine-events.js';
export type { LeaseWaitOptions } from './lease-wait.js';
export * from './operation-types.js';

const KIND: Record<OperationCommand, DeploymentKind> = { preview: 'preview', up: 'update', destroy: 'destroy', refresh: 'refresh', import: 'import' };
const QUESTION: Record<OperationCommand, string> = {
  preview: '',
  up: 'Do you want to perform this update?',
  destroy: 'Do you want to perform this destroy?',
  refresh: 'Do you want to perform this refresh?',
  import: 'Do you want to perform this import?',
};

/** Pulumi's `ActionLabel`: `Previewing update`, `Updating`, `Refreshing`, `Destroying`. */
function actionLabel(kind: DeploymentKind, dryRun: boolean): string {
  const noun = kind === 'preview' ? 'update' : kind;
  if (dryRun) return `Previewing ${noun}`;
  return kind === 'refresh' ? 'Refreshing' : kind === 'destroy' ? 'Destroying' : kind === 'import' ? 'Importing' : 'Updating';
}

/** The banner Pulumi prints before each run (none with `--json`). */
function bannerText(backend: OperationBackend, kind: DeploymentKind, dryRun: boolean): string {
  const label = actionLabel(kind, dryRun);
  if (!backend.banner) return `${label}:\n`;
  const { stack, style } = backend.banner;
  return style === 'service' ? `${label} (${stack})\n\n` : `${label} (${stack}):\n`;
}

/** Pulumi's `PULUMI_ENABLE_STREAMING_JSON_PREVIEW` (`cmdutil.IsTruthy`: `1` or `true` in any case). */
function streamsJsonPreview(env: NodeJS.ProcessEnv): boolean {
  const v = env.PULUMI_ENABLE_STREAMING_JSON_PREVIEW ?? '';
  return v === '1' || v.toLowerCase() === 'true';
}

function hasChanges(s: ChangeSummary): boolean {
  return Object.entries(s).some(([op, n]) => op !== 'same' && op !== 'read' && (n ?? 0) > 0);
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason ?? 'no reason given');
}

/** The outcome of one phase; `undefined` result when it refused to run. */
interface Phase {
  result?: DeploymentResult;
  status: OperationStatus;
}

/** Appends engine events to a file, one JSON document a line (`--event-log`), as `pulumi` writes it. */
function openEventLog(path: string): { write(e: EngineEvent): void; close(): void } {
  const fd = openSync(path, 'a');
  return {
    write: (e) => writeSync(fd, `${JSON.stringify(e)}\n`),
    close: () => closeSync(fd),
  };
}

/** The engine's `--target`/`--exclude`/`--replace` options from the command's flags. */
function targetingOf(flags: OperationFlags): TargetOptions {
  return {
    targets: [...(flags.target ?? []), ...(flags.targetReplace ?? [])],
    targetDependents: flags.targetDependents,
    excludes: flags.exclude,
    excludeDependents: flags.excludeDependents,
    replaces: [...(flags.replace ?? []), ...(flags.targetReplace ?? [])],
  };
}

/**
 * The run of `command` that `--run-program` applies to: refresh and destroy themselves, and the refresh before a
 * preview or update (`--refresh`); the refresh before a destroy reads with the state's providers, as Pulumi's does.
 */
function runsProgramFor(command: OperationCommand, kind: DeploymentKind): boolean {
  return command === 'destroy' ? kind === 'destroy' : kind === 'refresh';
}

/**
 * Refreshes a copy of `base` (providers are only read) and returns it, for a preview of `--refresh`. Its steps are
 * shown as refresh steps of a preview.
 */
async function refreshInMemory(
  req: OperationRequest,
  base: UntypedDeployment | undefined,
  events: EngineEvents,
  signal: AbortSignal | undefined,
): Promise<{ ok: boolean; cancelled: boolean; base?: UntypedDeployment; result: DeploymentResult }> {
  const result = await runDeployment({
    kind: 'refresh',
    program: req.program,
    config: req.config,
    base,
    crypter: req.backend.crypter,
    persister: { save: async () => undefined },
    events: {
      ...events,
      step: (e) => events.step?.({ ...e, op: e.op === 'update' ? 'refresh' : e.op, preview: true }),
    },
    parallel: req.flags.parallel,
    targeting: targetingOf(req.flags),
    env: req.env,
    projectPlugins: req.projectPlugins,
    readStack: req.backend.readStack,
    pluginLoggingArgs: pluginLoggingArgs(req.flags.logging),
    runProgram: req.flags.runProgram === true && runsProgramFor(req.command, 'refresh'),
    signal,
  });
  const refreshed = result.checkpoint ? (JSON.parse(result.checkpoint.text) as UntypedDeployment) : base;
  return { ok: result.ok, cancelled: result.cancelled, base: refreshed, result };
}

/**
 * Before a real run whose preview was skipped (a preview finds them itself): the error that refuses it before
 * anything starts, so nothing is added to history, when the state holds operations an interrupted run left. A live
 * update's pending operations are its steps in progress: its start conflict says so then (`--wait` has waited it out
 * before this is asked).
 */
async function leftoverOperations(backend: OperationBackend): Promise<Error | undefined> {
  const state = await backend.currentState?.();
  const pending = (state?.deployment as { pending_operations?: unknown } | undefined)?.pending_operations;
  if (!Array.isArray(pending) || pending.length === 0) return undefined;
  if (await backend.activeUpdateConflict?.()) return undefined;
  return new PendingOperationsError(pending as ConstructorParameters<typeof PendingOperationsError>[0]);
}

/**
 * `--wait`, before anything runs: while another update holds the stack (its lease is live), waits for it by asking who
 * holds it, creating nothing, so the preview, the check for operations an interrupted run left, and the update all
 * see the state it leaves. A crashed run's lease expires and its pending operations stay: they are then reported
 * before an update is created, and history gets no version. Starting still waits (`begin`'s own wait) should another
 * run take the stack in between. False when interrupted while waiting.
 */
async function waitForStack(req: OperationRequest, note: (text: string) => void): Promise<boolean> {
  const { wait } = req.flags;
  const conflict = req.backend.activeUpdateConflict;
  if (!wait || !conflict) return true;
  try {
    await waitForLease(
      async () => {
        const held = await conflict();
        if (held) throw held;
      },
      { timeoutMs: wait.timeoutMs, onWait: (h) => note(`${describeLeaseHolder(h)}\n`), signal: req.signal },
    );
    return true;
  } catch (err) {
    if (!req.signal?.aborted) throw err;
    note(`error: the operation was interrupted (${reasonText(req.signal.reason)}) while waiting to start\n`);
    return false;
  }
}

/** Runs a command; resolves to the process exit code. */
export async function runOperation(req: OperationRequest): Promise<number> {
  const { command, flags } = req;
  const now = req.now ?? Date.now;
  const note = flags.json ? (req.writeErr ?? req.write) : req.write;
  const previewCommand = command === 'preview' || req.previewOnly === true;
  const color = colorEnabled(flags.color, req.terminal !== undefined, req.env ?? process.env);

  // `up --plan`: read and checked before anything runs; `preview --save-plan`: its origin taken before the preview
  const loaded = command === 'up' && flags.plan ? await loadPlan(req, flags.plan, note) : undefined;
  // `up --strict` (Pulumi's): without a plan given, the update keeps to the plan its own preview records
  let plan: DeploymentPlan | undefined = loaded?.plan;
  const strict = command === 'up' && flags.strict === true && plan === undefined;
  const planToSave = command === 'preview' && flags.savePlan ? { file: flags.savePlan, origin: await originForSave(req, flags.savePlan) } : undefined;

  const run = async (kind: DeploymentKind, dryRun: boolean): Promise<Phase> => {
    const backendKind = dryRun && kind !== 'destroy' && kind !== 'refresh' ? 'preview' : kind === 'preview' ? 'update' : kind;
    const wait = !dryRun && flags.wait ? { timeoutMs: flags.wait.timeoutMs, onWait: (h: Parameters<LeaseWaitOptions['onWait']>[0]) => note(`${describeLeaseHolder(h)}\n`), signal: req.signal } : undefined;
    if (req.signal?.aborted) {
      note(`error: the operation was interrupted (${reasonText(req.signal.reason)}) before it started\n`);
      return { status: 'cancelled' };
    }
    if (!flags.json) req.write(bannerText(req.backend, kind, dryRun));
    let session: OperationSession;
    try {
      // the plan on the service is named when the update starts, where the service checks its approval
      const servicePlan = !dryRun && backendKind === 'update' ? loaded?.service : undefined;
      session = await req.backend.begin(backendKind, dryRun, wait || servicePlan ? { ...(wait ? { wait } : {}), ...(servicePlan ? { plan: servicePlan } : {}) } : undefined);
    } catch (err) {
      if (!req.signal?.aborted) throw err;
      note(`error: the operation was interrupted (${reasonText(req.signal.reason)}) while waiting to start\n`);
      return { status: 'cancelled' };
    }
    const started = now();
    const display = createDisplay({
      write: req.write,
      writeErr: req.writeErr,
      diff: flags.diff,
      verbose: flags.verbose,
      // as Pulumi: a preview (an update's too) is one digest, unless PULUMI_ENABLE_STREAMING_JSON_PREVIEW streams it
      json: flags.json ? (dryRun && !streamsJsonPreview(req.env ?? process.env) ? 'digest' : 'lines') : false,
      terminal: flags.json ? undefined : req.terminal,
      color,
      config: req.config,
      now,
      permalink: session.permalink,
      ...flags.display,
    });
    const eventLog = flags.eventLog ? openEventLog(flags.eventLog) : undefined;
    const serviceLog = serviceEventLog();
    const log = createEngineEventLog({
      config: req.config,
      preview: dryRun,
      now,
      emit: (e) => {
        const recorded = serviceLog.record(e);
        if (recorded) session.recordEvents?.([recorded]);
        display.engineEvent(e);
        eventLog?.write(e);
      },
    });
    const stops = [req.signal, session.lost].filter((s): s is AbortSignal => s !== undefined);
    let phase: Phase = { status: 'failed' };
    try {
      log.prelude();
      const stderrLog = flags.logging?.toStderr ? stderrLogEvents(flags.logging.verbosity, req.writeErr ?? req.write, now) : undefined;
      const events = combineEvents(display.events, log.events, stderrLog, req.observe);
      const signal = stops.length > 1 ? AbortSignal.any(stops) : stops[0];
      // A preview of `--refresh` shows the refresh and previews against its result, persisting neither.
      const refreshed = dryRun && flags.refresh && kind !== 'refresh' ? await refreshInMemory(req, session.base, events, signal) : undefined;
      if (refreshed && !refreshed.ok) {
        phase = { status: refreshed.cancelled ? 'cancelled' : 'failed' };
        display.finish(refreshed.result, dryRun, { durationMs: now() - started, status: phase.status });
        return phase;
      }
      // the service's required packs, installed before the program runs; they run before any --policy-pack
      const required = (kind === 'preview' || kind === 'update') && session.requiredPolicyPacks ? await session.requiredPolicyPacks({ env: req.env ?? process.env, onProgress: (line) => (req.writeErr ?? req.write)(`${line}\n`) }) : [];
      const policyPacks = [...required, ...(flags.policyPacks ?? [])];
      const stackTags = policyPacks.length && session.stackTags ? await session.stackTags() : undefined;
      const result = await runDeployment({
        kind,
        dryRun,
        program: req.program,
        config: req.config,
        imports: req.imports,
        base: refreshed?.base ?? session.base,
        crypter: req.backend.crypter,
        persister: session.persister,
        journal: session.journal,
        events,
        parallel: flags.parallel,
        targeting: targetingOf(flags),
        excludeProtected: flags.excludeProtected,
        continueOnError: flags.continueOnError,
        runProgram: flags.runProgram === true && runsProgramFor(command, kind),
        env: req.env,
        projectPlugins: req.projectPlugins,
        readStack: req.backend.readStack,
        pluginProgress: (line) => (req.writeErr ?? req.write)(`${line}\n`),
        skipPluginPreInstall: flags.skipPluginPreInstall,
        pluginLoggingArgs: pluginLoggingArgs(flags.logging),
        plan,
        recordPlan: planToSave !== undefined || (strict && dryRun && kind === 'update'),
        policyPacks,
        stackTags,
        signal,
      });
      phase = { result, status: result.cancelled ? 'cancelled' : result.ok ? 'succeeded' : 'failed' };
      const durationMs = now() - started;
      log.summary({ changes: result.summary, durationMs, status: phase.status, policyPacks: result.policyPacks });
      display.finish(result, dryRun, { durationMs, status: phase.status });
    } catch (err) {
      if (!(err instanceof PendingOperationsError || err instanceof PluginAcquisitionError || err instanceof PolicyPackInstallError)) throw err;
      if (err instanceof PendingOperationsError) {
        // A live update's pending operations are its steps in progress, not leftovers of an interrupted one.
        const live = await req.backend.activeUpdateConflict?.();
        if (live) throw live;
      }
      note(`error: ${err.message}\n`);
    } finally {
      eventLog?.close();
      const outcome = { ok: phase.status === 'succeeded', status: phase.status, summary: phase.result?.summary ?? {}, resourceCount: phase.result?.resourceCount ?? 0 };
      try {
        await session.complete(outcome);
      } catch (err) {
        if (!session.lost?.aborted) throw err;
      }
    }
    if (phase.status === 'cancelled') {
      if (session.lost?.aborted) note(`error: the update was cancelled or its lease expired: ${reasonText(session.lost.reason)}\n`);
      else note(`error: the ${dryRun ? 'preview' : 'operation'} was interrupted (${reasonText(req.signal?.reason)}); it stopped after the steps in progress and was recorded as cancelled\n`);
    }
    return phase;
  };

  const kind = KIND[command];
  if (!previewCommand && !(await waitForStack(req, note))) return 1;
  const { kept: protectedCount, total } = await protectedTally(req);
  if (protectedCount > 0 && protectedCount === total) {
    // Nothing to destroy: Pulumi says so and runs nothing (a destroy would refuse the protected resources).
    if (!flags.json) req.write(`There were no unprotected resources to destroy. There are still ${protectedCount} protected resources associated with this stack.\n`);
    return 0;
  }
  if (previewCommand) {
    const r = await run(kind, true);
    if (r.status !== 'succeeded') return 1;
    if (planToSave && r.result?.resourcePlans) await savePlan(req, planToSave.file, planToSave.origin, r.result.resourcePlans, note);
    if (flags.expectNoChanges && hasChanges(r.result!.summary)) {
      note('error: no changes were expected but changes were proposed\n');
      return 1;
    }
    return 0;
  }

  // As `pulumi`: without a terminal to ask on, refuse before anything runs (--skip-preview implies --yes).
  if (!flags.yes && !req.confirm) {
    throw new OperationUsageError('--yes or --skip-preview or --preview-only must be passed in to proceed when running in non-interactive mode');
  }
  // `--refresh` refreshes first, which settles what an interrupted run left (as the crash test shows)
  if (flags.skipPreview && kind !== 'refresh' && !flags.refresh) {
    const leftovers = await leftoverOperations(req.backend);
    if (leftovers) {
      note(`error: ${leftovers.message}\n`);
      return 1;
    }
  }
  if (!flags.skipPreview) {
    const preview = await run(kind, true);
    if (preview.status !== 'succeeded') return 1;
    if (strict && preview.result?.resourcePlans) plan = { manifest: planManifest(new Date(now())), resourcePlans: preview.result.resourcePlans };
    if (!flags.yes && req.confirm) {
      if (!(await req.confirm(QUESTION[command]))) {
        note('confirmation declined, not proceeding\n');
        return 1;
      }
    }
  }

  if ((command === 'up' || command === 'destroy') && flags.refresh) {
    const refreshed = await run('refresh', false);
    if (refreshed.status !== 'succeeded') return 1;
  }

  const result = await run(kind, false);
  if (result.status !== 'succeeded') return 1;
  if (flags.expectNoChanges && hasChanges(result.result!.summary)) {
    note('error: no changes were expected but changes occurred\n');
    return 1;
  }
  if (command === 'destroy' && !flags.json) req.write(destroyedNote(req, protectedCount));
  return 0;
}

/** What `pulumi destroy` says once it has destroyed (`pkg/cmd/pulumi/operations/destroy.go`). */
function destroyedNote(req: OperationRequest, protectedCount: number): string {
  if (protectedCount > 0) {
    return `All unprotected resources were destroyed. There are still ${protectedCount} protected resources associated with this stack.\n`;
  }
  if (req.flags.target?.length || req.remove) return '';
  const stack = req.backend.banner?.stack ?? req.program.stack;
  return (
    'The resources in the stack have been deleted, but the history and configuration associated with the stack are ' +
    `still maintained. \nIf you want to remove the stack completely, run \`stackyard stack rm ${stack}\`.\n`
  );
}

/**
 * `destroy --exclude-protected`: how many resources stay (the protected ones and all they depend on) of how many,
 * counted before anything runs as Pulumi's CLI counts them; `{0, 0}` otherwise.
 */
async function protectedTally(req: OperationRequest): Promise<{ kept: number; total: number }> {
  if (req.command !== 'destroy' || !req.flags.excludeProtected || !req.backend.currentState) return { kept: 0, total: 0 };
  const state = await req.backend.currentState();
  const resources = (state?.deployment as { resources?: ResourceState[] } | undefined)?.resources ?? [];
  return { kept: protectedExcludes(resources).length, total: resources.length };
}
