/**
 * The flow behind `preview`, `up`, `destroy` and `refresh`, independent of where state lives: optional preview and
 * confirmation, the run itself on a backend session (lease, base state, checkpoints or journal, engine events,
 * completion), and the exit code. A backend (local, or the service over HTTP) supplies an `OperationBackend`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { StackReader } from './plugins/providers/builtin-provider.js';
import type { JournalPersister, ResourceState, SecretsCrypter, SnapshotPersister, UntypedDeployment } from './state/deployment.js';
import { colorEnabled, createDisplay } from './display/display.js';
import type { ColorMode, DisplayFlags, TerminalInfo } from './display/display-types.js';
import { createEngineEventLog, serviceEventLog, type EngineEvent, type OperationStatus } from './display/engine-events.js';
import { combineEvents, type ChangeSummary, type EngineEvents } from './display/events.js';
import type { ProgramSpec } from './program/language-host.js';
import type { StackConfig } from './config/program-config.js';
import { protectedExcludes, type TargetOptions } from './steps/targeting.js';
import { describeLeaseHolder, type LeaseWaitOptions } from './lease-wait.js';
import type { ProjectPlugin } from './plugins/plugin-discovery.js';
import { PluginAcquisitionError } from '../plugins/acquire.js';
import { PendingOperationsError, runDeployment, type DeploymentKind, type DeploymentResult } from './run-deployment.js';

export type { EngineEvent, OperationStatus } from './display/engine-events.js';
export type { LeaseWaitOptions } from './lease-wait.js';

/** The command being run. */
export type OperationCommand = 'preview' | 'up' | 'destroy' | 'refresh';

/** How an operation ended, as handed to `complete`. */
export interface OperationOutcome {
  /** `status === 'succeeded'`. */
  ok: boolean;
  /** `cancelled`: stopped by Ctrl-C/SIGTERM, or the session fired `lost`. */
  status: OperationStatus;
  summary: ChangeSummary;
  resourceCount: number;
}

/** One backend-side operation: holds the lease (non-dry runs), receives state saves and engine events. */
export interface OperationSession {
  /** The stack's state when the operation started. */
  base: UntypedDeployment | undefined;
  /** Saves checkpoints of this operation (absent for dry runs). Unused when `journal` is present. */
  persister?: SnapshotPersister;
  /**
   * Optional. Saves journal entries instead of checkpoints, and takes precedence over `persister`: offer it when
   * the service's start answered `journalVersion: 1` (entries go to `PATCH …/journalentries`; replaying them onto
   * `base` gives the new state). Absent for dry runs.
   */
  journal?: JournalPersister;
  /**
   * Optional. Receives the operation's engine events (Pulumi's `EngineEvent` JSON: `sequence` from 0, `timestamp`
   * in unix seconds, exactly one payload key; secrets shown as `[secret]`), for dry runs too. Called synchronously
   * as events happen, in `sequence` order, one or more events per call, first a `preludeEvent` and last a
   * `summaryEvent`; never awaited, so it must not throw or block. The session batches them (the service takes ≤50
   * per `events/batch` call), must have delivered every event before `complete` resolves, and must not fail the
   * operation when delivery fails.
   */
  recordEvents?(events: EngineEvent[]): void;
  /**
   * Optional. Aborted by the session when it loses the lease: renew, checkpoint or event calls answered 403, the
   * update was cancelled with `stackyard cancel`, or the lease expired. `reason` should be an Error saying which.
   * The engine then stops like a first Ctrl-C (no new step starts; steps in progress finish, though their saves may
   * fail), calls `complete` with status `cancelled` (errors from that call are ignored once `lost` has fired),
   * prints `error: the update was cancelled or its lease expired: <reason>` and exits non-zero. Never fired after
   * `complete` was called.
   */
  lost?: AbortSignal;
  /**
   * Ends the operation: releases the lease, records history. Called exactly once per `begin`, after the last save
   * and the last `recordEvents` call.
   */
  complete(outcome: OperationOutcome): Promise<void>;
  /** Optional. The operation's page in the web console: the display's `View Live:` line (service backends only). */
  permalink?: string;
}

/** Options of `OperationBackend.begin`. */
export interface BeginOptions {
  /**
   * `--wait`: when another update holds the stack's lease, keep retrying the start instead of failing with
   * `LeaseHeldError`: use `waitForLease(tryStart, { ...wait })` (cli/engine/lease-wait.ts), which backs off, calls
   * `onWait(holder)` each time a different update holds the lease, stops on `signal`, and rethrows the last
   * `LeaseHeldError` after `timeoutMs` (may be `Infinity`). Only passed for non-dry runs.
   */
  wait?: LeaseWaitOptions;
}

/** What a backend provides for engine commands on one stack. */
export interface OperationBackend {
  /** Starts an operation of `kind`; dry runs take no lease. `options` is optional and may be ignored by dry runs. */
  begin(kind: 'update' | 'preview' | 'refresh' | 'destroy', dryRun: boolean, options?: BeginOptions): Promise<OperationSession>;
  /** The stack's secrets crypter. */
  crypter: SecretsCrypter;
  /** Reads other stacks for StackReference. */
  readStack?: StackReader;
  /**
   * Optional. The error to show when another update is running on the stack right now (its lease is live), else
   * `undefined`: asked when the state holds pending operations, which are then that update's steps in progress.
   */
  activeUpdateConflict?(): Promise<Error | undefined>;
  /**
   * Optional. How the banner before each run names the stack, as Pulumi's backends do: `local` prints
   * `Updating (dev):` (Pulumi's diy backend), `service` prints `Updating (dev)` and a blank line (Pulumi Cloud's).
   */
  banner?: { stack: string; style: 'local' | 'service' };
  /**
   * Optional. The stack's state now, without starting an operation: `destroy --exclude-protected` counts from it, and
   * a real run whose preview was skipped is refused from it when it holds operations an interrupted run left.
   */
  currentState?(): Promise<UntypedDeployment | undefined>;
}

/** Flags shared by the four commands (names as `pulumi` spells them). */
export interface OperationFlags {
  yes?: boolean;
  skipPreview?: boolean;
  diff?: boolean;
  json?: boolean;
  target?: string[];
  /** `--target-dependents`. */
  targetDependents?: boolean;
  /** `--exclude` (`-x`). */
  exclude?: string[];
  /** `--exclude-dependents`. */
  excludeDependents?: boolean;
  /** `--replace`: replaced even without a diff. */
  replace?: string[];
  /** `--target-replace`: targeted and replaced. */
  targetReplace?: string[];
  /** `--continue-on-error` (up, destroy). */
  continueOnError?: boolean;
  /** `destroy --exclude-protected`. */
  excludeProtected?: boolean;
  refresh?: boolean;
  expectNoChanges?: boolean;
  parallel?: number;
  verbose?: boolean;
  color?: ColorMode;
  /** `--wait[=DURATION]` (up, destroy, refresh): wait for the stack's lease, at most `timeoutMs`. */
  wait?: { timeoutMs: number };
  /** What the display shows (`--show-sames`, `--suppress-outputs`, …). */
  display?: DisplayFlags;
  /** `--event-log <file>`: every engine event also goes to this file, one JSON document a line. */
  eventLog?: string;
  /** `--skip-plugin-pre-install`: plugins are acquired only when a provider is launched. */
  skipPluginPreInstall?: boolean;
}

/** Everything one command needs. */
export interface OperationRequest {
  command: OperationCommand;
  flags: OperationFlags;
  program: ProgramSpec;
  config: StackConfig;
  projectPlugins?: ProjectPlugin[];
  backend: OperationBackend;
  /** Standard output. */
  write: (text: string) => void;
  /** Where notes and errors go when standard output carries JSON (default: `write`). */
  writeErr?: (text: string) => void;
  /** Standard output is this terminal: progress is drawn live. */
  terminal?: TerminalInfo;
  /** Only preview (`destroy|refresh --preview-only`). */
  previewOnly?: boolean;
  /** `destroy --remove`: the stack is removed afterwards, so the closing note does not say it is kept. */
  remove?: boolean;
  /** Asks the user to confirm; absent when not interactive. */
  confirm?: (question: string) => Promise<boolean>;
  env?: NodeJS.ProcessEnv;
  /** Stops the operation gracefully (first Ctrl-C or SIGTERM). */
  signal?: AbortSignal;
  now?: () => number;
}

/** Raised for usage problems the user can fix (no stack trace). */
export class OperationUsageError extends Error {
  override readonly name = 'OperationUsageError';
}

const KIND: Record<OperationCommand, DeploymentKind> = { preview: 'preview', up: 'update', destroy: 'destroy', refresh: 'refresh' };
const QUESTION: Record<OperationCommand, string> = {
  preview: '',
  up: 'Do you want to perform this update?',
  destroy: 'Do you want to perform this destroy?',
  refresh: 'Do you want to perform this refresh?',
};

/** Pulumi's `ActionLabel`: `Previewing update`, `Updating`, `Refreshing`, `Destroying`. */
function actionLabel(kind: DeploymentKind, dryRun: boolean): string {
  const noun = kind === 'preview' ? 'update' : kind;
  if (dryRun) return `Previewing ${noun}`;
  return kind === 'refresh' ? 'Refreshing' : kind === 'destroy' ? 'Destroying' : 'Updating';
}

/** The banner Pulumi prints before each run (none with `--json`). */
function bannerText(backend: OperationBackend, kind: DeploymentKind, dryRun: boolean): string {
  const label = actionLabel(kind, dryRun);
  if (!backend.banner) return `${label}:\n`;
  const { stack, style } = backend.banner;
  return style === 'service' ? `${label} (${stack})\n\n` : `${label} (${stack}):\n`;
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
    signal,
  });
  const refreshed = result.checkpoint ? (JSON.parse(result.checkpoint.text) as UntypedDeployment) : base;
  return { ok: result.ok, cancelled: result.cancelled, base: refreshed, result };
}

/**
 * Before a real run whose preview was skipped (a preview finds them itself): the error that refuses it before
 * anything starts, so nothing is added to history, when the state holds operations an interrupted run left. A live
 * update's pending operations are its steps in progress: its start conflict says so then (and `--wait` waits).
 */
async function leftoverOperations(backend: OperationBackend): Promise<Error | undefined> {
  const state = await backend.currentState?.();
  const pending = (state?.deployment as { pending_operations?: unknown } | undefined)?.pending_operations;
  if (!Array.isArray(pending) || pending.length === 0) return undefined;
  if (await backend.activeUpdateConflict?.()) return undefined;
  return new PendingOperationsError(pending as ConstructorParameters<typeof PendingOperationsError>[0]);
}

/** Runs a command; resolves to the process exit code. */
export async function runOperation(req: OperationRequest): Promise<number> {
  const { command, flags } = req;
  const now = req.now ?? Date.now;
  const note = flags.json ? (req.writeErr ?? req.write) : req.write;
  const previewCommand = command === 'preview' || req.previewOnly === true;
  const color = colorEnabled(flags.color, req.terminal !== undefined, req.env ?? process.env);

  const run = async (kind: DeploymentKind, dryRun: boolean): Promise<Phase> => {
    const backendKind = kind === 'update' || kind === 'preview' ? (dryRun ? 'preview' : 'update') : kind;
    const wait = !dryRun && flags.wait ? { timeoutMs: flags.wait.timeoutMs, onWait: (h: Parameters<LeaseWaitOptions['onWait']>[0]) => note(`${describeLeaseHolder(h)}\n`), signal: req.signal } : undefined;
    if (req.signal?.aborted) {
      note(`error: the operation was interrupted (${reasonText(req.signal.reason)}) before it started\n`);
      return { status: 'cancelled' };
    }
    if (!flags.json) req.write(bannerText(req.backend, kind, dryRun));
    let session: OperationSession;
    try {
      session = await req.backend.begin(backendKind, dryRun, wait ? { wait } : undefined);
    } catch (err) {
      if (!req.signal?.aborted) throw err;
      note(`error: the operation was interrupted (${reasonText(req.signal.reason)}) while waiting to start\n`);
      return { status: 'cancelled' };
    }
    const started = now();
    const display = createDisplay({
      write: req.write,
      diff: flags.diff,
      verbose: flags.verbose,
      json: flags.json ? (previewCommand ? 'digest' : 'lines') : false,
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
      debug: flags.verbose,
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
      const events = combineEvents(display.events, log.events);
      const signal = stops.length > 1 ? AbortSignal.any(stops) : stops[0];
      // A preview of `--refresh` shows the refresh and previews against its result, persisting neither.
      const refreshed = dryRun && flags.refresh && kind !== 'refresh' ? await refreshInMemory(req, session.base, events, signal) : undefined;
      if (refreshed && !refreshed.ok) {
        phase = { status: refreshed.cancelled ? 'cancelled' : 'failed' };
        display.finish(refreshed.result, dryRun, { durationMs: now() - started, status: phase.status });
        return phase;
      }
      const result = await runDeployment({
        kind,
        dryRun,
        program: req.program,
        config: req.config,
        base: refreshed?.base ?? session.base,
        crypter: req.backend.crypter,
        persister: session.persister,
        journal: session.journal,
        events,
        parallel: flags.parallel,
        targeting: targetingOf(flags),
        excludeProtected: flags.excludeProtected,
        continueOnError: flags.continueOnError,
        env: req.env,
        projectPlugins: req.projectPlugins,
        readStack: req.backend.readStack,
        pluginProgress: (line) => (req.writeErr ?? req.write)(`${line}\n`),
        skipPluginPreInstall: flags.skipPluginPreInstall,
        signal,
      });
      phase = { result, status: result.cancelled ? 'cancelled' : result.ok ? 'succeeded' : 'failed' };
      const durationMs = now() - started;
      log.summary({ changes: result.summary, durationMs, status: phase.status });
      display.finish(result, dryRun, { durationMs, status: phase.status });
    } catch (err) {
      if (!(err instanceof PendingOperationsError || err instanceof PluginAcquisitionError)) throw err;
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
  const { kept: protectedCount, total } = await protectedTally(req);
  if (protectedCount > 0 && protectedCount === total) {
    // Nothing to destroy: Pulumi says so and runs nothing (a destroy would refuse the protected resources).
    if (!flags.json) req.write(`There were no unprotected resources to destroy. There are still ${protectedCount} protected resources associated with this stack.\n`);
    return 0;
  }
  if (previewCommand) {
    const r = await run(kind, true);
    if (r.status !== 'succeeded') return 1;
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
  if (flags.skipPreview && kind !== 'refresh') {
    const leftovers = await leftoverOperations(req.backend);
    if (leftovers) {
      note(`error: ${leftovers.message}\n`);
      return 1;
    }
  }
  if (!flags.skipPreview) {
    const preview = await run(kind, true);
    if (preview.status !== 'succeeded') return 1;
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
