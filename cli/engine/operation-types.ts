/**
 * The contract between the operation flow (`operation.ts`) and whoever runs it: the backend it drives (lease, state,
 * events, completion), the flags and the request. Kept apart from the flow so backends and commands import the
 * contract without the flow.
 */
import type { RequiredPolicyPackSpec } from './plugins/analyzers/policy-packs.js';
import type { StackReader } from './plugins/providers/builtin-provider.js';
import type { JournalPersister, SecretsCrypter, SnapshotPersister, UntypedDeployment } from './state/deployment.js';
import type { ColorMode, DisplayFlags, TerminalInfo } from './display/display-types.js';
import type { EngineEvent, OperationStatus } from './display/engine-events.js';
import type { ChangeSummary, EngineEvents } from './display/events.js';
import type { ProgramSpec } from './program/language-host.js';
import type { StackConfig } from './config/program-config.js';
import type { LeaseWaitOptions } from './lease-wait.js';
import type { ProjectPlugin } from './plugins/plugin-discovery.js';
import type { LoggingSettings } from './plugins/plugin-logging.js';
import type { PlannedImport } from './steps/planned-imports.js';
import type { StackHead } from './plans/staleness.js';

/** The command being run. */
export type OperationCommand = 'preview' | 'up' | 'destroy' | 'refresh' | 'import';

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
  /**
   * Optional. The policy packs the service requires for this update (its create-update answer's `requiredPolicies`),
   * each installed on the machine first (downloaded once, under `$PULUMI_HOME` of `env`); they run with the group's config before any
   * `--policy-pack`, on previews and updates. A pack that cannot be installed rejects with a `PolicyPackInstallError`.
   */
  requiredPolicyPacks?(o: { env: NodeJS.ProcessEnv; onProgress: (line: string) => void }): Promise<RequiredPolicyPackSpec[]>;
  /**
   * Optional. The stack's tags (Pulumi's `deploy.Target.Tags`, read once the update has started, as its backends do), which
   * policy packs see (ConfigureStack's `tags`, `args.stackTags`). Called only when packs run.
   */
  stackTags?(): Promise<Record<string, string>>;
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
  /**
   * `up --plan` with a plan the service holds: sent in the update's start request (`stackyardPlan`), where the
   * service refuses a plan that is not approved, is stale, or was made from another program. Only for non-dry runs.
   */
  plan?: ServicePlanRef;
}

/** A plan on the service and the digest of the program an update runs (hex sha256, unencrypted). */
export interface ServicePlanRef {
  id: string;
  programDigest: string;
}

/** Where a plan on the service stands, as much of the service's answer as `up --plan` reads. */
export interface ServicePlanState {
  id: string;
  status: string;
  requiredApprovals: number;
  approvals: readonly { user: string }[];
  rejection?: { user: string; comment?: string };
  voidReason?: string;
}

/** The plans of the stack on the service: `preview --save-plan` uploads one, `up --plan <id>` reads one. */
export interface ServicePlans {
  /** Uploads a plan file (as written, secrets as ciphertexts) with the unencrypted digest of its program. */
  upload(plan: unknown, programDigest: string): Promise<ServicePlanState>;
  /** The plan's state and its file. */
  get(id: string): Promise<ServicePlanState & { plan: unknown }>;
}

/** What a backend provides for engine commands on one stack. */
export interface OperationBackend {
  /**
   * Starts an operation of `kind`; dry runs take no lease. `options` is optional and may be ignored by dry runs.
   * `import` (`stackyard import`) is an update of the service (Pulumi's CLI starts it there) and a `resource-import`
   * in local history (Pulumi's DIY backend records it so).
   */
  begin(kind: 'update' | 'preview' | 'refresh' | 'destroy' | 'import', dryRun: boolean, options?: BeginOptions): Promise<OperationSession>;
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
  /** Optional. The stack's latest version and who ran it: a saved plan records it, `up --plan` compares it. */
  stackHead?(): Promise<StackHead | undefined>;
  /** Optional. The service's plans (approvals of update plans); absent on the local backend. */
  plans?: ServicePlans;
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
  /** `refresh|destroy --run-program` (or `PULUMI_RUN_PROGRAM`): the program runs, so providers get its configuration. */
  runProgram?: boolean;
  /** `-v <level>`, `--logtostderr`, `--logflow`: the debug log on stderr, and what plugins are told. */
  logging?: LoggingSettings;
  /** `preview --save-plan <file>`: write the preview's update plan there. */
  savePlan?: string;
  /** `up --plan <file|id>`: the update may only take the operations this plan allows (an id: a plan on the service). */
  plan?: string;
  /** `up --allow-stale-plan`: apply a plan although the stack, program or configuration moved on since it was made. */
  allowStalePlan?: boolean;
  /** `up --strict`: the update may only take the operations its own preview planned (Pulumi's strict plan mode). */
  strict?: boolean;
  /** `up --wait-for-approval[=DURATION]`: wait at most `timeoutMs` for the service to approve the plan. */
  waitForApproval?: { timeoutMs: number };
  /** `--policy-pack` (and the `--policy-pack-config` at the same position): packs run on previews and updates. */
  policyPacks?: { path: string; configFile?: string }[];
}

/** Everything one command needs. */
export interface OperationRequest {
  command: OperationCommand;
  flags: OperationFlags;
  program: ProgramSpec;
  config: StackConfig;
  /** The resources `import` adopts. */
  imports?: readonly PlannedImport[];
  /** Also told of every step and diagnostic (`preview --import-file` collects the creates). */
  observe?: EngineEvents;
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
