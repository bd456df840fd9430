/**
 * The flow behind `preview`, `up`, `destroy` and `refresh`, independent of where state lives: optional preview and
 * confirmation, the run itself on a backend session (lease, base state, checkpoints, completion), and the exit
 * code. A backend (local now, the service in part 2) supplies an `OperationBackend`.
 */
import type { StackReader } from './builtin-provider.js';
import type { SecretsCrypter, SnapshotPersister, UntypedDeployment } from './deployment.js';
import { createDisplay } from './display.js';
import type { ChangeSummary } from './events.js';
import type { ProgramSpec, StackConfig } from './language-host.js';
import type { ProjectPlugin } from './plugin-discovery.js';
import { runDeployment, type DeploymentKind, type DeploymentResult } from './run-deployment.js';

/** The command being run. */
export type OperationCommand = 'preview' | 'up' | 'destroy' | 'refresh';

/** One backend-side operation: holds the lease (non-dry runs) and receives checkpoints. */
export interface OperationSession {
  /** The stack's state when the operation started. */
  base: UntypedDeployment | undefined;
  /** Saves checkpoints of this operation (absent for dry runs). */
  persister?: SnapshotPersister;
  /** Ends the operation: releases the lease, records history. */
  complete(outcome: { ok: boolean; summary: ChangeSummary; resourceCount: number }): Promise<void>;
}

/** What a backend provides for engine commands on one stack. */
export interface OperationBackend {
  /** Starts an operation of `kind`; dry runs take no lease. */
  begin(kind: 'update' | 'preview' | 'refresh' | 'destroy', dryRun: boolean): Promise<OperationSession>;
  /** The stack's secrets crypter. */
  crypter: SecretsCrypter;
  /** Reads other stacks for StackReference. */
  readStack?: StackReader;
}

/** Flags shared by the four commands (names as `pulumi` spells them). */
export interface OperationFlags {
  yes?: boolean;
  skipPreview?: boolean;
  diff?: boolean;
  json?: boolean;
  target?: string[];
  refresh?: boolean;
  expectNoChanges?: boolean;
  parallel?: number;
  verbose?: boolean;
}

/** Everything one command needs. */
export interface OperationRequest {
  command: OperationCommand;
  flags: OperationFlags;
  program: ProgramSpec;
  config: StackConfig;
  projectPlugins?: ProjectPlugin[];
  backend: OperationBackend;
  write: (text: string) => void;
  /** Only preview (`destroy|refresh --preview-only`). */
  previewOnly?: boolean;
  /** Asks the user to confirm; absent when not interactive. */
  confirm?: (question: string) => Promise<boolean>;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
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

function hasChanges(s: ChangeSummary): boolean {
  return Object.entries(s).some(([op, n]) => op !== 'same' && op !== 'read' && (n ?? 0) > 0);
}

/** Runs a command; resolves to the process exit code. */
export async function runOperation(req: OperationRequest): Promise<number> {
  const { command, flags } = req;
  const run = async (kind: DeploymentKind, dryRun: boolean): Promise<DeploymentResult> => {
    const backendKind = kind === 'update' || kind === 'preview' ? (dryRun ? 'preview' : 'update') : kind;
    const session = await req.backend.begin(backendKind, dryRun);
    const display = createDisplay({ write: req.write, diff: flags.diff, json: flags.json, verbose: flags.verbose });
    let result: DeploymentResult | undefined;
    try {
      result = await runDeployment({
        kind,
        dryRun,
        program: req.program,
        config: req.config,
        base: session.base,
        crypter: req.backend.crypter,
        persister: session.persister,
        events: display.events,
        parallel: flags.parallel,
        targets: flags.target,
        env: req.env,
        projectPlugins: req.projectPlugins,
        readStack: req.backend.readStack,
        signal: req.signal,
      });
      display.finish(result, dryRun);
      return result;
    } finally {
      await session.complete({ ok: result?.ok ?? false, summary: result?.summary ?? {}, resourceCount: result?.resourceCount ?? 0 });
    }
  };

  const kind = KIND[command];
  if (command === 'preview' || req.previewOnly) {
    const r = await run(kind, true);
    if (!r.ok) return 1;
    if (flags.expectNoChanges && hasChanges(r.summary)) {
      req.write('error: no changes were expected but changes were proposed\n');
      return 1;
    }
    return 0;
  }

  if (!flags.skipPreview || !flags.yes) {
    if (!flags.json) req.write(`Previewing ${command === 'up' ? 'update' : command}:\n`);
    const preview = await run(kind, true);
    if (!preview.ok) return 1;
    if (!flags.yes) {
      if (!req.confirm) throw new OperationUsageError('--yes must be passed in to proceed when running in non-interactive mode');
      if (!(await req.confirm(QUESTION[command]))) {
        req.write('confirmation declined, not proceeding\n');
        return 1;
      }
    }
  }

  if (command === 'up' && flags.refresh) {
    if (!flags.json) req.write('Refreshing:\n');
    const refreshed = await run('refresh', false);
    if (!refreshed.ok) return 1;
  }

  if (!flags.json) req.write(`${command === 'up' ? 'Updating' : command === 'destroy' ? 'Destroying' : 'Refreshing'}:\n`);
  const result = await run(kind, false);
  if (!result.ok) return 1;
  if (flags.expectNoChanges && hasChanges(result.summary)) {
    req.write('error: no changes were expected but changes occurred\n');
    return 1;
  }
  return 0;
}
