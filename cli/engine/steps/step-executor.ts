/**
 * Runs the steps of one deployment, as Pulumi's step executor does: the program's requests become steps
 * (`program-requests.ts`, with `step-generator.ts` deciding which), provider resources and default providers are
 * registered (`provider-steps.ts`), each step is applied (`apply-steps.ts`), and deletes run at the end
 * (`delete-steps.ts`); `run-ledger.ts` keeps which states each part has claimed. The executor owns what they share:
 * the `--parallel` slots, whether the run failed or stopped, the change summary, and the steps still in progress.
 * Independent registrations run concurrently up to `parallel`; the program itself orders dependents after their
 * dependencies.
 */
import type { ResourceState } from '../state/deployment.js';
import type { ChangeSummary, StepOp } from '../display/events.js';
import { isDefaultProviderStep } from '../display/step-visibility.js';
import type { PropertyMap } from '../resource/properties.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import type { PackageRequest } from '../plugins/providers/parameterized.js';
import { AliasResolver } from './aliases.js';
import { StepApplier } from './apply-steps.js';
import { DeleteSteps } from './delete-steps.js';
import { ProgramRequests } from './program-requests.js';
import { ProviderSteps } from './provider-steps.js';
import { runPlannedImports, type PlannedImport } from './planned-imports.js';
import { refreshStates, resolveBasePending } from './refresh-steps.js';
import { providerReplaceCheck, ReplacementPlanner } from './replacement.js';
import { StepHooks } from './resource-hooks.js';
import { PolicyViolationError } from './policy-checks.js';
import { RunLedger } from './run-ledger.js';
import { Semaphore } from './semaphore.js';
import {
  ShuttingDownError,
  StepError,
  type ExecutorOptions,
  type PendingStart,
  type ReadGoal,
  type RegisterGoal,
  type RegisterResult,
  type RunContext,
  type StepDetails,
} from './step-types.js';
import { Targeting, unknownTargetMessage } from './targeting.js';

export { ShuttingDownError, StepError } from './step-types.js';
export type { AliasSpec, ExecutorOptions, ReadGoal, RegisterGoal, RegisterResult } from './step-types.js';
export type { PlannedImport } from './planned-imports.js';

/** Runs steps for one deployment. */
export class StepExecutor {
  /** Set once any step failed or the run was cancelled: the run fails. */
  failed = false;
  /** Set when no new step may start: a failure (unless `continueOnError`) or a cancel. Deletes are skipped. */
  stopped = false;
  /** Set by `cancel()`: the run stops after the steps in progress, and that is not a step failure. */
  cancelled = false;
  readonly errors: string[] = [];
  readonly summary: ChangeSummary = {};

  private readonly sem: Semaphore;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly targeting: Targeting;
  private readonly ledger: RunLedger;
  private readonly ctx: RunContext;
  private readonly providers: ProviderSteps;
  private readonly requests: ProgramRequests;
  private readonly deletes: DeleteSteps;

  constructor(private readonly o: ExecutorOptions) {
    this.sem = new Semaphore(Math.max(1, o.parallel));
    const aliases = new AliasResolver(o.stack, o.project);
    this.targeting = new Targeting(o.targeting);
    this.ledger = new RunLedger(o.base, o.snapshots, aliases, o.preview);
    this.ctx = {
      options: o,
      preview: o.preview,
      snapshots: o.snapshots,
      events: o.events,
      slots: this.sem,
      hooks: new StepHooks(o.hooks, o.preview, o.events, (urn, err) => void this.fail(urn, err)),
      emit: (op, urn, type, phase, extra) => this.emit(op, urn, type, phase, extra),
      providerStep: (fn, pending) => this.providerStep(fn, pending),
      providerByRef: (ref) => this.providers.providerByRef(ref),
      fail: (urn, err, options) => this.fail(urn, err, options),
      refuse: (message, urn) => this.refuse(message, urn),
      assertRunning: () => this.assertRunning(),
      save: () => this.save(),
    };
    this.providers = new ProviderSteps(this.ctx, this.ledger);
    const planner = new ReplacementPlanner(
      () => this.ledger.live.values(),
      (r) => this.ledger.live.delete(r.urn),
      providerReplaceCheck((ref) => this.providers.providerByRef(ref), (call) => this.sem.run(call)),
    );
    this.deletes = new DeleteSteps(this.ctx, this.ledger, this.targeting, planner);
    const applier = new StepApplier(this.ctx, this.ledger, planner, this.deletes);
    this.requests = new ProgramRequests(this.ctx, { ledger: this.ledger, aliases, targeting: this.targeting, planner, providers: this.providers, applier });
  }

  /** A resource of this run or of the base state, for `getResource`. */
  lookup(urn: string): ResourceState | undefined {
    return this.ledger.lookup(urn);
  }

  private emit(op: StepOp, urn: string, type: string, phase: 'start' | 'done' | 'failed', extra: StepDetails = {}): void {
    // A default provider's steps are internal, as in Pulumi's engine: they are not counted.
    if (phase === 'done' && op !== 'create-replacement' && op !== 'delete-replaced' && !isDefaultProviderStep({ type, urn })) {
      this.summary[op] = (this.summary[op] ?? 0) + 1;
    }
    this.o.events.step?.({ op, urn, type, phase, preview: this.o.preview, ...extra });
  }

  /**
   * Marks the run failed and reports the error once; without `continueOnError` no new step starts. A policy
   * violation is not reported again as a diagnostic: the Policies section shows it, as in Pulumi.
   */
  fail(urn: string | undefined, err: unknown, options: { keepGoing?: boolean } = {}): StepError {
    if (err instanceof StepError) return err;
    const message = err instanceof Error ? err.message : String(err);
    this.failed = true;
    if (!this.o.continueOnError && !options.keepGoing) this.stopped = true;
    this.errors.push(urn ? `${urn}: ${message}` : message);
    if (!(err instanceof PolicyViolationError)) this.o.events.diag?.({ severity: 'error', message, urn });
    return new StepError(urn ?? '', message);
  }

  /** Reports a run-level error (targets, constraints) and stops the run. */
  private refuse(message: string, urn?: string): void {
    this.failed = true;
    this.stopped = true;
    this.errors.push(message);
    this.o.events.diag?.({ severity: 'error', message, urn });
  }

  /**
   * Stops the run gracefully: steps already talking to a provider finish (and are saved), nothing new starts, and
   * no deletes run. Idempotent.
   */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.failed = true;
    this.stopped = true;
  }

  /** Resolves once no registration, read, invoke or delete is in progress. */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    const done = () => void this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  private assertRunning(): void {
    if (this.cancelled) throw new ShuttingDownError('the operation was cancelled');
    if (this.stopped) throw new ShuttingDownError('resource monitor shut down after an earlier failure');
  }

  /**
   * Runs a provider call that changes or reads the world once a slot is free, unless the run stopped meanwhile. A
   * mutating call first records its pending operation and saves it, inside the slot: a run killed while steps wait
   * for a slot then lists only the operations that really reached the provider.
   */
  private providerStep<T>(fn: () => Promise<T>, pending?: PendingStart): Promise<T> {
    return this.sem.run(async () => {
      this.assertRunning();
      if (pending) {
        pending.begun = this.o.snapshots.beginOp(pending.resource, pending.type);
        await this.save();
      }
      return fn();
    });
  }

  private async save(): Promise<void> {
    if (!this.o.preview) await this.o.snapshots.save();
  }

  /**
   * Reports each literal `--target`/`--exclude`/`--replace` naming no resource (Pulumi's `checkTargets`); with
   * `includeRegistered`, resources registered this run count. False when any was unknown (the run then fails).
   */
  verifyTargets(includeRegistered: boolean, only: 'all' | 'replaces' = 'all'): boolean {
    const known = (u: string) => this.ledger.baseUrns.has(u) || (includeRegistered && this.ledger.registeredUrns.has(u));
    const missing = only === 'replaces' ? this.targeting.replaces.literalUrns.filter((u) => !known(u)) : this.targeting.unknownTargets(known);
    for (const urn of missing) this.refuse(unknownTargetMessage(urn));
    return missing.length === 0;
  }

  /** Handles RegisterResource. */
  register(goal: RegisterGoal): Promise<RegisterResult> {
    return this.track(this.requests.register(goal));
  }

  /** Handles RegisterResourceOutputs (components and the stack). */
  registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    return this.track(this.requests.registerOutputs(urn, outputs));
  }

  /** Settles the stack's outputs once the run's outcome is known (see `ProgramRequests.finalizeStackOutputs`). */
  finalizeStackOutputs(errored: boolean): void {
    this.requests.finalizeStackOutputs(errored);
  }

  /** Handles ReadResource (and StackReference). */
  read(goal: ReadGoal): Promise<{ urn: string; outputs: PropertyMap }> {
    return this.track(this.requests.read(goal));
  }

  /**
   * The provider serving a component package (Construct and Call): the explicit reference, or the package's default
   * provider, registered on first use as for a custom resource.
   */
  async componentProvider(type: string, explicit: string | undefined, version: string | undefined, pluginDownloadURL?: string, pkg?: PackageRequest): Promise<{ ref: string; provider: Provider }> {
    this.assertRunning();
    return this.track(this.providers.providerFor(type, explicit, version, pluginDownloadURL, pkg));
  }

  /** Handles Invoke through the package's provider (the in-process builtin one for `pulumi:pulumi:*` functions). */
  invoke(tok: string, args: PropertyMap, explicit: string | undefined, version: string | undefined, pkg?: PackageRequest): Promise<{ result: PropertyMap; failures: { property: string; reason: string }[] }> {
    return this.track(this.requests.invoke(tok, args, explicit, version, pkg));
  }

  /**
   * Reads the custom resources of the base state again (those `--target`/`--exclude` allow), resolving pending
   * operations left by an interrupted run first (see refresh-steps.ts).
   */
  refreshAll(): Promise<void> {
    return this.track(this.refreshAllNow());
  }

  private async refreshAllNow(): Promise<void> {
    if (!this.verifyTargets(false)) return;
    this.resolvePending();
    const states = [...this.o.base.resources];
    await refreshStates(this.ctx, states, this.targeting.refreshable(states));
    if (!this.o.preview) await this.save();
  }

  /** Runs the import deployment of `stackyard import` (see planned-imports.ts): no program, no deletes. */
  importAll(imports: readonly PlannedImport[]): Promise<void> {
    return this.track(runPlannedImports(this.ctx, this.ledger, this.providers, imports));
  }

  /** Reports and (unless previewing) drops the pending operations an interrupted run left (a refresh resolves them). */
  resolvePending(): void {
    resolveBasePending(this.ctx, this.o.base.resources);
  }

  /**
   * What follows the program's registrations (Pulumi's `performPostSteps`): an update deletes what the program no
   * longer declares; a refresh that ran the program reads back the resources it did not register; a destroy that
   * ran it deletes everything, the states its registrations recorded included. A target naming nothing fails the run
   * first (Pulumi's `checkTargets`), and nothing is deleted or read then.
   */
  async afterProgram(): Promise<void> {
    if (!this.verifyTargets(true)) return;
    const mode = this.o.programMode;
    if (mode === 'refresh') {
      const unclaimed = [...this.ledger.live.values()];
      await this.track(refreshStates(this.ctx, unclaimed, this.targeting.refreshable(this.o.base.resources)));
      return;
    }
    await this.deleteAll(mode === 'destroy' ? this.deletes.allOfRun() : this.deletes.candidates()).catch(() => undefined);
  }

  /** The resources of the new state: registered or kept this run (what AnalyzeStack sees, Pulumi's `news`). */
  finalStates(): ResourceState[] {
    return [...this.ledger.registered.values()];
  }

  /** The `deleteBeforeReplace` option `urn`'s registration gave this run, if it gave one. */
  deleteBeforeReplaceOf(urn: string): boolean | undefined {
    return this.ledger.deleteBeforeReplace.get(urn);
  }

  /** Everything in the base state that `--target`/`--exclude` allow (destroy). */
  allBase(): ResourceState[] {
    if (!this.verifyTargets(false)) return [];
    return this.deletes.allBase();
  }

  /** Deletes the given states in reverse dependency order, independent deletes in parallel. */
  deleteAll(states: ResourceState[]): Promise<void> {
    return this.track(this.deletes.deleteAll(states));
  }
}
