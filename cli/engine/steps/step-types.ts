/**
 * Types shared by the step generator, the replacement planner, targeting and the step executor's parts: what the
 * program asked for, what a registration answers, what a step needs of the run, and the errors that stop a run.
 */
import type { PolicyPacks } from '../plugins/analyzers/policy-packs.js';
import type { PendingOperation, PendingOperationType, ResourceState, Snapshot } from '../state/deployment.js';
import type { DetailedDiff, EngineEvents, StepOp } from '../display/events.js';
import type { StackConfig } from '../config/program-config.js';
import type { PropertyMap } from '../resource/properties.js';
import type { Provider, ProviderRegistry } from '../plugins/providers/provider-registry.js';
import type { PackageRequest } from '../plugins/providers/parameterized.js';
import type { SnapshotManager } from '../state/snapshot-manager.js';
import type { HookBinding, HookRegistry, StepHookRunner } from './hook-types.js';
import type { Semaphore } from './semaphore.js';
import type { TargetOptions } from './targeting.js';
import type { PlanRun } from '../plans/plan-run.js';

/** An alias given as a spec (resolved against the resource's own name, type and parent). */
export interface AliasSpec {
  name?: string;
  type?: string;
  stack?: string;
  project?: string;
  parentUrn?: string;
  noParent?: boolean;
}

/** What the program asked for in RegisterResource (after transforms). */
export interface RegisterGoal {
  type: string;
  name: string;
  parent?: string;
  custom: boolean;
  inputs: PropertyMap;
  protect?: boolean;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  provider?: string;
  version?: string;
  /** The `pluginDownloadURL` resource option: where the provider plugin is downloaded from. */
  pluginDownloadURL?: string;
  /** The package its `packageRef` stands for (RegisterPackage); it takes the place of `version` and `pluginDownloadURL`. */
  package?: PackageRequest;
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  aliasSpecs: AliasSpec[];
  aliasUrns: string[];
  customTimeouts?: { create?: number; update?: number; delete?: number };
  retainOnDelete?: boolean;
  deletedWith?: string;
  importId?: string;
  sourcePosition?: string;
  /** The `hooks` resource option: hook names by type. */
  hooks?: HookBinding;
}

/** A goal without options, for registrations the engine makes itself (default providers, unconstructed components). */
export function bareGoal(type: string, name: string, custom: boolean, inputs: PropertyMap, extra: Partial<RegisterGoal> = {}): RegisterGoal {
  return {
    type,
    name,
    custom,
    inputs,
    dependencies: [],
    propertyDependencies: {},
    ignoreChanges: [],
    replaceOnChanges: [],
    additionalSecretOutputs: [],
    aliasSpecs: [],
    aliasUrns: [],
    ...extra,
  };
}

/** What the program asked for in ReadResource. */
export interface ReadGoal {
  type: string;
  name: string;
  id: string;
  parent?: string;
  inputs: PropertyMap;
  provider?: string;
  version?: string;
  /** The package its `packageRef` stands for (RegisterPackage). */
  package?: PackageRequest;
  dependencies: string[];
  additionalSecretOutputs: string[];
}

/** A registration's answer. */
export interface RegisterResult {
  urn: string;
  id: string;
  outputs: PropertyMap;
  /** `skip`: not created or changed (untargeted, or depends on a failed step); `fail`: its step failed. */
  result: 'success' | 'skip' | 'fail';
}

/** How a run that is not an update uses the program (absent: an update, or no program at all): program-modes.ts. */
export type ProgramMode = 'refresh' | 'destroy';

/** Settings of one executor. */
export interface ExecutorOptions {
  stack: string;
  project: string;
  preview: boolean;
  parallel: number;
  config: StackConfig;
  registry: ProviderRegistry;
  snapshots: SnapshotManager;
  base: Snapshot;
  events: EngineEvents;
  /** `--target`, `--exclude`, `--replace` and their companions. */
  targeting?: TargetOptions;
  /** `--continue-on-error`: a failed step skips only what depends on it. */
  continueOnError?: boolean;
  /** The resource and error hooks the program registered (none when no program runs). */
  hooks?: HookRegistry;
  /** A refresh or destroy that runs the program (`--run-program`): the steps it takes (program-modes.ts). */
  programMode?: ProgramMode;
  /** The plan the run keeps to (`up --plan`) or records (`preview --save-plan`). */
  plan?: PlanRun;
  /** The run's policy packs (`--policy-pack`), which see each registration before its provider acts. */
  policies?: PolicyPacks;
}

/** A step failed; the run is marked failed and the message is shown once. */
export class StepError extends Error {
  override readonly name = 'StepError';
  constructor(readonly urn: string, message: string) {
    super(message);
  }
}

/** Raised for registrations that arrive after the run failed. */
export class ShuttingDownError extends Error {
  override readonly name = 'ShuttingDownError';
}

/** Extra details of a step event. */
export type StepDetails = { diffKeys?: string[]; replaceKeys?: string[]; detailedDiff?: DetailedDiff; error?: string; old?: ResourceState; new?: ResourceState };

/** A pending operation to record once the step holds a slot; `begun` is set when it has been recorded. */
export interface PendingStart {
  resource: ResourceState;
  type: PendingOperationType;
  begun?: PendingOperation;
}

/** What steps run outside the executor (refresh) need of it. */
export interface StepContext {
  readonly preview: boolean;
  readonly snapshots: SnapshotManager;
  readonly events: EngineEvents;
  emit(op: StepOp, urn: string, type: string, phase: 'start' | 'done' | 'failed', extra?: StepDetails): void;
  /** Runs a provider call in a slot, unless the run stopped; a mutating call records `pending` first. */
  providerStep<T>(fn: () => Promise<T>, pending?: PendingStart): Promise<T>;
  providerByRef(ref: string): Promise<Provider>;
  /** Reports a failed step; the returned error is what to throw. */
  fail(urn: string | undefined, err: unknown): StepError;
}

/**
 * What the parts of the step executor (program requests, provider steps, step application, deletes) share: the
 * run's settings and its controls, which the executor owns.
 */
export interface RunContext extends StepContext {
  readonly options: ExecutorOptions;
  /** The `--parallel` slots provider calls run in. */
  readonly slots: Semaphore;
  /** Runs the resource and error hooks the steps' states bind. */
  readonly hooks: StepHookRunner;
  /** Throws `ShuttingDownError` once no new step may start. */
  assertRunning(): void;
  /** Saves the snapshot, outside previews. */
  save(): Promise<void>;
  /** Reports a run-level error (targets, constraints) and stops the run. */
  refuse(message: string, urn?: string): void;
  /** Reports a failed step; with `keepGoing` the run goes on even without `continueOnError`. */
  fail(urn: string | undefined, err: unknown, options?: { keepGoing?: boolean }): StepError;
}
