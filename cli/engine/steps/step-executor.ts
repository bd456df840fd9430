/**
 * Runs the steps of one deployment: turns registrations into steps (with `step-generator.ts` deciding which, and
 * `replacement.ts` planning delete-before-replace), applies `--target`/`--exclude`/`--replace` (`targeting.ts`),
 * talks to providers and records results in the snapshot. Independent registrations run concurrently up to
 * `parallel`; the program itself orders dependents after their dependencies.
 */
import { randomBytes } from 'node:crypto';
import { AliasResolver } from './aliases.js';
import { defaultProviderInputs } from '../plugins/providers/default-provider-inputs.js';
import type { ResourceState } from '../state/deployment.js';
import { runDeletes } from './delete-order.js';
import type { ChangeSummary, StepOp } from '../display/events.js';
import { formatCheckFailures, ResourceInitError, type ResourceRef } from '../plugins/providers/provider-client.js';
import { pluginDownloadUrlOf, withPluginDownloadUrl } from '../plugins/providers/provider-internals.js';
import { defaultProviderUrn, ProviderRegistry, versionOf, type Provider } from '../plugins/providers/provider-registry.js';
import {
  changedKeys,
  containsUnknowns,
  deepEqual,
  markSecretOutputs,
  resolveOutputValues,
  UNKNOWN,
  type PropertyMap,
} from '../resource/properties.js';
import { unknownOutputMessage, withoutUnknowns } from './output-policy.js';
import { applyIgnoreChanges, invalidIgnoreChangesMessage } from './ignore-changes.js';
import { importResource } from './import-step.js';
import { deleteIsProtected, dependentReplacementRefusal, ProtectedDeleteError, replacementRefusal } from './protection.js';
import { refreshStates, resolveBasePending } from './refresh-steps.js';
import { providerReplaceCheck, ReplacementPlanner } from './replacement.js';
import { Semaphore } from './semaphore.js';
import { decideStep, forcedReplacement, importedReplacementRefusal, normalizeDiff, replacedWith, type StepDecision } from './step-generator.js';
import {
  ShuttingDownError,
  StepError,
  type ExecutorOptions,
  type PendingStart,
  type ReadGoal,
  type RegisterGoal,
  type RegisterResult,
  type StepContext,
  type StepDetails,
} from './step-types.js';
import { requiredUrns, Targeting, unknownTargetMessage, untargetedDeleteMessage, untargetedDependencyMessage } from './targeting.js';
import { createUrn, formatProviderRef, isProviderType, packageOfType, parseProviderRef, STACK_TYPE, urnName } from '../resource/urn.js';

export { ShuttingDownError, StepError } from './step-types.js';
export type { AliasSpec, ExecutorOptions, ReadGoal, RegisterGoal, RegisterResult } from './step-types.js';

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

  /** Base states not claimed by a registration yet (including ones deleted for a replacement: `pendingReplacement`). */
  private readonly live = new Map<string, ResourceState>();
  private readonly pendingDeletes: ResourceState[] = [];
  private readonly registeredUrns = new Set<string>();
  private readonly registered = new Map<string, ResourceState>();
  /** Base states kept unchanged ahead of their registration (untargeted resources and what they need). */
  private readonly carried = new Set<ResourceState>();
  /** New resources not created because they are not targeted (Pulumi's skipped creates). */
  private readonly skippedCreates = new Set<string>();
  /** Resources whose step failed or was skipped under `continueOnError`; what depends on them is skipped. */
  private readonly skipped = new Set<string>();
  private readonly baseProviders = new Map<string, ResourceState>();
  private readonly baseUrns: Set<string>;
  private readonly defaults = new Map<string, Promise<string>>();
  private readonly replacementDeletes = new Map<string, Promise<ResourceState>>();
  private readonly sem: Semaphore;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly aliases: AliasResolver;
  private readonly targeting: Targeting;
  private readonly planner: ReplacementPlanner;
  /** The stack's outputs as the program registered them; finalized once the run's outcome is known. */
  private stackOutputs?: PropertyMap;

  constructor(private readonly o: ExecutorOptions) {
    this.sem = new Semaphore(Math.max(1, o.parallel));
    this.aliases = new AliasResolver(o.stack, o.project);
    this.targeting = new Targeting(o.targeting);
    this.baseUrns = new Set(o.base.resources.map((r) => r.urn));
    for (const r of o.base.resources) {
      if (r.delete) this.pendingDeletes.push(r);
      else this.live.set(r.urn, r);
      if (isProviderType(r.type) && r.id) this.baseProviders.set(formatProviderRef(r.urn, r.id), r);
    }
    this.planner = new ReplacementPlanner(
      () => this.live.values(),
      (r) => this.live.delete(r.urn),
      providerReplaceCheck((ref) => this.providerByRef(ref), (call) => this.sem.run(call)),
    );
  }

  /** A resource of this run or of the base state, for `getResource`. */
  lookup(urn: string): ResourceState | undefined {
    return this.registered.get(urn) ?? this.o.base.resources.find((r) => r.urn === urn && !r.delete);
  }

  private emit(op: StepOp, urn: string, type: string, phase: 'start' | 'done' | 'failed', extra: StepDetails = {}): void {
    if (phase === 'done' && op !== 'create-replacement' && op !== 'delete-replaced') this.summary[op] = (this.summary[op] ?? 0) + 1;
    this.o.events.step?.({ op, urn, type, phase, preview: this.o.preview, ...extra });
  }

  /** Marks the run failed and reports the error once; without `continueOnError` no new step starts. */
  fail(urn: string | undefined, err: unknown, options: { keepGoing?: boolean } = {}): StepError {
    if (err instanceof StepError) return err;
    const message = err instanceof Error ? err.message : String(err);
    this.failed = true;
    if (!this.o.continueOnError && !options.keepGoing) this.stopped = true;
    this.errors.push(urn ? `${urn}: ${message}` : message);
    this.o.events.diag?.({ severity: 'error', message, urn });
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

  // ----- targets -----

  /**
   * Reports each literal `--target`/`--exclude`/`--replace` naming no resource (Pulumi's `checkTargets`); with
   * `includeRegistered`, resources registered this run count. False when any was unknown (the run then fails).
   */
  verifyTargets(includeRegistered: boolean, only: 'all' | 'replaces' = 'all'): boolean {
    const known = (u: string) => this.baseUrns.has(u) || (includeRegistered && this.registeredUrns.has(u));
    const missing = only === 'replaces' ? this.targeting.replaces.literalUrns.filter((u) => !known(u)) : this.targeting.unknownTargets(known);
    for (const urn of missing) this.refuse(unknownTargetMessage(urn));
    return missing.length === 0;
  }

  /** A resource a registration needs but which was not created (not targeted), if any. */
  private skippedDependency(state: ResourceState): string | undefined {
    return requiredUrns(state).find((u) => this.skippedCreates.has(u));
  }

  // ----- registration -----

  /** Handles RegisterResource. */
  register(goal: RegisterGoal): Promise<RegisterResult> {
    return this.track(this.registerNow(goal));
  }

  private async registerNow(goal: RegisterGoal): Promise<RegisterResult> {
    this.assertRunning();
    const urn = createUrn(this.o.stack, this.o.project, goal.parent, goal.type, goal.name);
    let old: ResourceState | undefined;
    try {
      if (this.registeredUrns.has(urn)) throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`);
      this.registeredUrns.add(urn);
      old = this.claimOld(urn, this.aliases.aliasesOf(goal, urn));
      if (isProviderType(goal.type)) return await this.registerProvider(goal, urn, old);
      if (!goal.custom) return await this.registerComponent(goal, urn, old);
      return await this.registerCustom(goal, urn, old);
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      const failure = this.fail(urn, err);
      if (!this.o.continueOnError) throw failure;
      this.skipped.add(urn);
      return { urn, id: old?.id ?? '', outputs: old?.outputs ?? {}, result: 'fail' };
    }
  }

  /** Takes the base state registered under `urn` or one of its aliases out of the pool of unclaimed states. */
  private claimOld(urn: string, aliases: string[]): ResourceState | undefined {
    for (const candidate of [urn, ...aliases]) {
      const old = this.live.get(candidate);
      if (!old || (candidate !== urn && this.registeredUrns.has(candidate))) continue;
      this.live.delete(candidate);
      if (candidate !== urn) {
        this.aliases.recordMatch(urn, candidate);
        this.o.snapshots.rename(candidate, urn);
      }
      return old;
    }
    return undefined;
  }

  private newState(goal: RegisterGoal, urn: string, extra: Partial<ResourceState>): ResourceState {
    return {
      urn,
      custom: goal.custom,
      type: goal.type,
      ...extra,
      parent: goal.parent || undefined,
      protect: goal.protect || undefined,
      dependencies: goal.dependencies.length ? [...goal.dependencies] : undefined,
      propertyDependencies: Object.keys(goal.propertyDependencies).length ? goal.propertyDependencies : undefined,
      additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
      aliases: goal.aliasUrns.length ? goal.aliasUrns : undefined,
      customTimeouts: goal.customTimeouts,
      retainOnDelete: goal.retainOnDelete || undefined,
      deletedWith: goal.deletedWith || undefined,
      importID: goal.importId || undefined,
      ignoreChanges: goal.ignoreChanges.length ? goal.ignoreChanges : undefined,
      replaceOnChanges: goal.replaceOnChanges.length ? goal.replaceOnChanges : undefined,
      sourcePosition: goal.sourcePosition || undefined,
    };
  }

  /** Records a state of this run; `supersedes` (the old state) leaves the snapshot. */
  private record(urn: string, state: ResourceState, supersedes?: ResourceState): void {
    // a state recorded earlier this run (kept unchanged, or imported) is replaced where it stands
    if (supersedes && (this.carried.has(supersedes) || this.registered.get(urn) === supersedes)) {
      this.carried.delete(supersedes);
      this.o.snapshots.replaceNew(supersedes, state);
    } else {
      this.o.snapshots.recordNew(state, supersedes);
    }
    this.registered.set(urn, state);
  }

  /**
   * Keeps an untargeted (or skipped) resource's old state as it is. What it needs and has not been registered is
   * kept first, so the state stays ordered (Pulumi's untargeted same steps).
   */
  private carry(old: ResourceState, emit: boolean): void {
    for (const u of requiredUrns(old)) {
      const dep = this.live.get(u);
      if (!dep || this.registeredUrns.has(u)) continue;
      this.live.delete(u);
      this.carry(dep, false);
    }
    this.o.snapshots.recordNew(old, old);
    this.carried.add(old);
    this.registered.set(old.urn, old);
    if (emit) {
      this.emit('same', old.urn, old.type, 'start', { old, new: old });
      this.emit('same', old.urn, old.type, 'done', { old, new: old });
    }
  }

  /**
   * Applies `--target`/`--exclude` and `continueOnError` skips to a registration. Returns the answer for a
   * resource left alone, or undefined when it takes part in the run.
   */
  private leftAlone(proposed: ResourceState, old: ResourceState | undefined): RegisterResult | undefined {
    const urn = proposed.urn;
    const kept = (result: RegisterResult['result']): RegisterResult => {
      if (old) this.carry(old, result === 'success');
      return { urn, id: old?.id ?? '', outputs: old?.outputs ?? {}, result };
    };
    if (requiredUrns(proposed).some((u) => this.skipped.has(u))) {
      this.skipped.add(urn);
      return kept('skip');
    }
    if (this.targeting.includes(proposed, proposed.type === STACK_TYPE)) {
      const missing = this.skippedDependency(proposed);
      if (missing) throw new Error(untargetedDependencyMessage(urn, missing));
      return undefined;
    }
    if (!old) this.skippedCreates.add(urn);
    return kept(old ? 'success' : 'skip');
  }

  private async registerComponent(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const inputs = resolveOutputValues(goal.inputs);
    const state = this.newState(goal, urn, { inputs, outputs: old?.outputs ?? {} });
    const alone = this.leftAlone(state, old);
    if (alone) return { ...alone, id: '', outputs: {} };
    const op: StepOp = !old ? 'create' : deepEqual(old.inputs ?? {}, inputs) ? 'same' : 'update';
    this.emit(op, urn, goal.type, 'start', { old, new: state });
    this.record(urn, state, old);
    if (op !== 'same') await this.save();
    this.emit(op, urn, goal.type, 'done', { old, new: state });
    return { urn, id: '', outputs: {}, result: 'success' };
  }

  /** Handles RegisterResourceOutputs (components and the stack). */
  registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    return this.track(this.registerOutputsNow(urn, outputs));
  }

  private async registerOutputsNow(urn: string, outputs: PropertyMap): Promise<void> {
    const cur = this.registered.get(urn);
    if (!cur) {
      // an untargeted or skipped component still registers its outputs; there is nothing to record
      if (this.skippedCreates.has(urn) || this.skipped.has(urn)) return;
      throw new Error(`cannot register outputs of unknown resource ${urn}`);
    }
    if (cur.type === STACK_TYPE) {
      this.stackOutputs = resolveOutputValues(outputs);
      return;
    }
    const resolved = this.knownOutputs(urn, resolveOutputValues(outputs), cur.outputs ?? {}, 'output');
    const next: ResourceState = { ...cur, outputs: resolved };
    this.replaceRegistered(cur, next);
    this.o.events.outputs?.({ urn, type: next.type, state: next });
    if (!deepEqual(cur.outputs, next.outputs)) await this.save();
  }

  private replaceRegistered(cur: ResourceState, next: ResourceState): void {
    if (this.carried.has(cur)) {
      this.carried.delete(cur);
      this.carried.add(next);
    }
    this.o.snapshots.replaceNew(cur, next);
    this.registered.set(cur.urn, next);
  }

  /** Outside previews, outputs with unknown values keep their previous value or are left out, with a warning. */
  private knownOutputs(urn: string, outputs: PropertyMap, previous: PropertyMap, noun: string): PropertyMap {
    if (this.o.preview) return outputs;
    const known = withoutUnknowns(outputs, previous);
    for (const u of known.unknown) this.o.events.diag?.({ severity: 'warning', urn, message: unknownOutputMessage(noun, u.key, u.kept) });
    return known.outputs;
  }

  /**
   * Settles the stack's outputs once the run's outcome is known (Pulumi finalizes them last): a failed run keeps
   * the previous outputs, overlaid by those the program registered; unknown values are never stored as known.
   */
  finalizeStackOutputs(errored: boolean): void {
    const stack = [...this.registered.values()].find((r) => r.type === STACK_TYPE);
    if (!stack) return;
    const previous = this.o.base.resources.find((r) => r.urn === stack.urn && !r.delete)?.outputs ?? {};
    let outputs = stack.outputs ?? {};
    if (this.stackOutputs) outputs = errored ? { ...previous, ...this.stackOutputs } : this.stackOutputs;
    outputs = this.knownOutputs(stack.urn, outputs, previous, 'stack output');
    const next: ResourceState = { ...stack, outputs };
    if (!deepEqual(stack.outputs, outputs)) this.replaceRegistered(stack, next);
    this.o.events.outputs?.({ urn: stack.urn, type: stack.type, state: this.registered.get(stack.urn)! });
  }

  private async registerProvider(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const pkg = packageOfType(goal.type);
    const inputs = withPluginDownloadUrl(resolveOutputValues(goal.inputs), goal.pluginDownloadURL);
    const ref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const launched = this.o.registry.launch(pkg, versionOf(inputs), pluginDownloadUrlOf(inputs));
    const provider = await launched;
    const checked = await provider.checkConfig(ref, old?.inputs ?? {}, inputs);
    if (checked.failures.length) throw new Error(`provider configuration is invalid: ${formatCheckFailures(checked.failures)}`);
    const op: StepOp = !old ? 'create' : deepEqual(old.inputs ?? {}, checked.inputs) ? 'same' : 'update';
    const id = old?.id ?? (this.o.preview ? UNKNOWN : ProviderRegistry.newId());
    const state = this.newState(goal, urn, { id, inputs: checked.inputs, outputs: checked.inputs });
    const details: StepDetails = { old, new: state, ...(op === 'update' ? { diffKeys: changedKeys(old!.inputs ?? {}, checked.inputs) } : {}) };
    this.emit(op, urn, goal.type, 'start', details);
    await this.o.registry.configureNew(urn, id, pkg, checked.inputs, launched);
    this.record(urn, state, old);
    if (op !== 'same') await this.save();
    this.emit(op, urn, goal.type, 'done', details);
    return { urn, id: this.o.preview && !old ? '' : id, outputs: checked.inputs, result: 'success' };
  }

  /** The default provider reference for a package and version, registering it on first use. */
  private defaultProvider(pkg: string, version: string | undefined, pluginDownloadURL?: string): Promise<string> {
    const key = `${pkg}@${version ?? ''}@${pluginDownloadURL ?? ''}`;
    let p = this.defaults.get(key);
    if (!p) {
      p = (async () => {
        const urn = defaultProviderUrn(this.o.stack, this.o.project, pkg, version, pluginDownloadURL);
        const goal: RegisterGoal = {
          type: `pulumi:providers:${pkg}`,
          name: urnName(urn),
          custom: true,
          inputs: defaultProviderInputs(pkg, this.o.config, version),
          pluginDownloadURL,
          dependencies: [],
          propertyDependencies: {},
          ignoreChanges: [],
          replaceOnChanges: [],
          additionalSecretOutputs: [],
          aliasSpecs: [],
          aliasUrns: [],
        };
        this.registeredUrns.add(urn);
        const res = await this.registerProvider(goal, urn, this.claimOld(urn, []));
        return formatProviderRef(urn, res.id || UNKNOWN);
      })();
      this.defaults.set(key, p);
    }
    return p;
  }

  /** Resolves the provider of a resource: explicit reference, or the package's default provider. */
  private async providerFor(type: string, explicit: string | undefined, version: string | undefined, pluginDownloadURL?: string): Promise<{ ref: string; provider: Provider }> {
    const ref = explicit || (await this.defaultProvider(packageOfType(type), version || undefined, pluginDownloadURL || undefined));
    return { ref, provider: await this.providerByRef(ref) };
  }

  /** A configured provider by reference; providers only in the base state are started from their recorded inputs. */
  private providerByRef(ref: string): Promise<Provider> {
    const existing = this.o.registry.get(ref);
    if (existing) return existing;
    const state = this.baseProviders.get(ref);
    if (!state) return Promise.reject(new Error(`unknown provider reference ${ref}`));
    const { urn, id } = parseProviderRef(ref);
    return this.o.registry.configureNew(urn, id, packageOfType(state.type), state.inputs ?? {});
  }

  private async registerCustom(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const { ref, provider } = await this.providerFor(goal.type, goal.provider, goal.version, goal.pluginDownloadURL);
    const alone = this.leftAlone(this.newState(goal, urn, { provider: ref }), old);
    if (alone) return alone;
    // as Pulumi's generateSteps: the option names a resource already adopted when the state's import id (or, without
    // one, its id) is the same
    if (goal.importId && old && (old.external || (old.importID || old.id) !== goal.importId)) {
      // Pulumi would import the named resource as a replacement of this one; creating it instead would silently
      // make a second resource
      throw new Error(`the \`import\` resource option naming another id than the resource in the state is not supported by stackyard yet; remove it and run again (the resource it names was left untouched)`);
    }
    const imported = goal.importId !== undefined && !old;
    if (imported) old = await importResource(this.context(), goal, urn, provider, (extra) => this.newState(goal, urn, { ...extra, provider: ref }), (state) => this.record(urn, state));
    const rref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const rawInputs = resolveOutputValues(goal.inputs);
    const forced = old !== undefined && forcedReplacement(old, this.targeting.isReplaceTarget(urn));
    // a forced replacement starts from the program's inputs alone, as a new resource would
    const olds = old && !forced ? (old.inputs ?? {}) : {};
    const ignored = old && !forced ? applyIgnoreChanges(olds, rawInputs, goal.ignoreChanges) : { inputs: rawInputs, invalidPaths: [] };
    if (ignored.invalidPaths.length) this.o.events.diag?.({ severity: 'info', urn, message: invalidIgnoreChangesMessage(ignored.invalidPaths) });
    const proposed = ignored.inputs;
    const checked = await this.sem.admit(() => provider.check(rref, olds, proposed, randomBytes(32)));
    if (checked.failures.length) throw new Error(`Check failed: ${formatCheckFailures(checked.failures)}`);
    const inputs = checked.inputs;
    if (!this.o.preview && containsUnknowns(inputs)) {
      throw new Error(`inputs of ${urn} still hold unknown values outside a preview; refusing to create or update it with them`);
    }
    if (!old) return this.create(goal, urn, ref, provider, inputs, 'create');
    const diff = forced
      ? undefined
      : (replacedWith(goal, this.planner.replaced) ??
        normalizeDiff(await this.sem.run(() => provider.diff(rref, old.id ?? '', old.outputs ?? {}, old.inputs ?? {}, inputs, goal.ignoreChanges)), old.inputs ?? {}, inputs));
    const decision = decideStep(goal, old, inputs, ref, diff);
    switch (decision.kind) {
      case 'same':
        // as Pulumi: an import the program's inputs agree with is resolved with the imported state, no same step
        return imported ? { urn, id: old.id ?? '', outputs: old.outputs ?? {}, result: 'success' } : this.same(goal, urn, ref, inputs, old);
      case 'update':
        return this.update(goal, urn, ref, provider, inputs, old, decision.diffKeys);
      case 'replace':
        return this.replace(goal, urn, ref, provider, inputs, old, decision);
    }
  }

  private same(goal: RegisterGoal, urn: string, ref: string, inputs: PropertyMap, old: ResourceState): RegisterResult {
    const outputs = markSecretOutputs(old.outputs ?? {}, goal.additionalSecretOutputs);
    const state = this.newState(goal, urn, { id: old.id, inputs, outputs, provider: ref, created: old.created, modified: old.modified, initErrors: old.initErrors });
    this.emit('same', urn, goal.type, 'start', { old, new: state });
    this.record(urn, state, old);
    this.emit('same', urn, goal.type, 'done', { old, new: state });
    return { urn, id: old.id ?? '', outputs, result: 'success' };
  }

  /**
   * Creates a resource. For a create-before-delete replacement (`replacing`), the old state is marked for deletion
   * only once the new resource exists (Pulumi's `CreateStep.Apply`), so a failed create leaves it live.
   */
  private async create(
    goal: RegisterGoal,
    urn: string,
    ref: string,
    provider: Provider,
    inputs: PropertyMap,
    op: 'create' | 'create-replacement',
    supersedes?: ResourceState,
    replacing?: ResourceState,
  ): Promise<RegisterResult> {
    this.assertRunning();
    const now = new Date().toISOString();
    const pendingState = this.newState(goal, urn, { inputs, provider: ref });
    this.emit(op, urn, goal.type, 'start', { new: pendingState });
    const start: PendingStart | undefined = this.o.preview ? undefined : { resource: pendingState, type: 'creating' };
    let id: string;
    let outputs: PropertyMap;
    try {
      ({ id, outputs } = await this.providerStep(() => provider.create({ urn, name: goal.name, type: goal.type }, inputs, this.o.preview, goal.customTimeouts?.create), start));
    } catch (err) {
      if (err instanceof ResourceInitError && !this.o.preview) {
        const state = this.newState(goal, urn, { id: err.id, inputs, outputs: markSecretOutputs(err.outputs, goal.additionalSecretOutputs), provider: ref, initErrors: err.reasons, created: now, modified: now });
        if (replacing) this.condemn(replacing);
        this.record(urn, state, supersedes);
      }
      if (start?.begun) this.o.snapshots.endOp(start.begun);
      await this.save();
      if (!(err instanceof ShuttingDownError)) this.emit(op, urn, goal.type, 'failed', { error: String(err), new: pendingState });
      throw err;
    }
    if (!this.o.preview && !id) throw new Error('provider returned an empty id from Create');
    outputs = markSecretOutputs(outputs, goal.additionalSecretOutputs);
    const state = this.newState(goal, urn, { id: id || undefined, inputs, outputs, provider: ref, created: now, modified: now });
    if (replacing) this.condemn(replacing);
    this.record(urn, state, supersedes);
    if (start?.begun) {
      this.o.snapshots.endOp(start.begun);
      await this.save();
    } else if (replacing) {
      await this.save();
    }
    this.emit(op, urn, goal.type, 'done', { new: state });
    return { urn, id, outputs, result: 'success' };
  }

  /** Marks a replaced old state for deletion at the end of the run. */
  private condemn(old: ResourceState): void {
    let marked = old;
    if (!this.o.preview) {
      marked = { ...old, delete: true };
      this.o.snapshots.replaceBase(old, marked);
    }
    this.pendingDeletes.push(marked);
  }

  private async update(goal: RegisterGoal, urn: string, ref: string, provider: Provider, inputs: PropertyMap, old: ResourceState, diffKeys: string[]): Promise<RegisterResult> {
    this.assertRunning();
    const proposed = this.newState(goal, urn, { id: old.id, inputs, outputs: old.outputs, provider: ref, created: old.created, modified: old.modified });
    this.emit('update', urn, goal.type, 'start', { diffKeys, old, new: proposed });
    const start: PendingStart | undefined = this.o.preview ? undefined : { resource: old, type: 'updating' };
    let outputs: PropertyMap;
    try {
      outputs = await this.providerStep(() => provider.update({ urn, name: goal.name, type: goal.type }, old.id ?? '', old.outputs ?? {}, old.inputs ?? {}, inputs, goal.ignoreChanges, this.o.preview, goal.customTimeouts?.update), start);
    } catch (err) {
      if (start?.begun) this.o.snapshots.endOp(start.begun);
      if (err instanceof ResourceInitError && !this.o.preview) {
        const state = this.newState(goal, urn, { id: old.id, inputs, outputs: err.outputs, provider: ref, initErrors: err.reasons, created: old.created, modified: new Date().toISOString() });
        this.record(urn, state, old);
      }
      await this.save();
      if (!(err instanceof ShuttingDownError)) this.emit('update', urn, goal.type, 'failed', { error: String(err), diffKeys, old, new: proposed });
      throw err;
    }
    outputs = markSecretOutputs(outputs, goal.additionalSecretOutputs);
    const state = this.newState(goal, urn, { id: old.id, inputs, outputs, provider: ref, created: old.created, modified: new Date().toISOString() });
    this.record(urn, state, old);
    if (start?.begun) {
      this.o.snapshots.endOp(start.begun);
      await this.save();
    }
    this.emit('update', urn, goal.type, 'done', { diffKeys, old, new: state });
    return { urn, id: old.id ?? '', outputs, result: 'success' };
  }

  private async replace(
    goal: RegisterGoal,
    urn: string,
    ref: string,
    provider: Provider,
    inputs: PropertyMap,
    old: ResourceState,
    d: Extract<StepDecision, { kind: 'replace' }>,
  ): Promise<RegisterResult> {
    const refusal = replacementRefusal(urn, old, goal.protect);
    // as Pulumi: an update stops here, before a create-before-delete creates anything; a preview reports the error
    // and still shows the replacement the diff asks for
    if (refusal && !this.o.preview) throw new Error(refusal);
    if (refusal) this.fail(urn, new Error(refusal), { keepGoing: true });
    const importRefusal = importedReplacementRefusal(goal, old, inputs, d.replaceKeys);
    if (importRefusal && !this.o.preview) throw new Error(importRefusal);
    if (importRefusal) this.o.events.diag?.({ severity: 'warning', urn, message: importRefusal });
    this.planner.replaced.add(urn);
    const proposed = this.newState(goal, urn, { inputs, provider: ref });
    const details = { diffKeys: d.diffKeys, replaceKeys: d.replaceKeys };
    this.emit('replace', urn, goal.type, 'start', { ...details, old, new: proposed });
    let res: RegisterResult;
    if (!d.deleteOld) {
      // deleted by an earlier delete-before-replace already: only the create is left
      res = await this.create(goal, urn, ref, provider, inputs, 'create-replacement', old);
    } else if (d.deleteBeforeReplace) {
      const dependents = await this.planner.plan(old);
      const blocked = dependentReplacementRefusal(urn, dependents);
      if (blocked) throw new Error(blocked);
      for (const dep of dependents.reverse()) await this.deleteForReplacement(dep.state, true);
      const deleted = await this.deleteForReplacement(old, false);
      res = await this.create(goal, urn, ref, provider, inputs, 'create-replacement', deleted);
    } else {
      res = await this.create(goal, urn, ref, provider, inputs, 'create-replacement', undefined, old);
    }
    this.emit('replace', urn, goal.type, 'done', { ...details, old, new: this.registered.get(urn) ?? proposed });
    return res;
  }

  /**
   * Deletes a state for a delete-before-replace, once per URN however many replacements need it gone. A
   * dependent deleted this way goes back to the pool marked `pendingReplacement`, so its registration replaces it.
   */
  private deleteForReplacement(s: ResourceState, dependent: boolean): Promise<ResourceState> {
    let p = this.replacementDeletes.get(s.urn);
    if (!p) {
      p = this.deleteOne(s, 'delete-replaced', this.planner.deleting, true).then((marked) => {
        if (dependent && !this.registeredUrns.has(s.urn)) this.live.set(s.urn, marked);
        return marked;
      });
      this.replacementDeletes.set(s.urn, p);
    }
    return p;
  }

  // ----- reads and invokes -----

  /** Handles ReadResource (and StackReference). */
  read(goal: ReadGoal): Promise<{ urn: string; outputs: PropertyMap }> {
    return this.track(this.readNow(goal));
  }

  private async readNow(goal: ReadGoal): Promise<{ urn: string; outputs: PropertyMap }> {
    this.assertRunning();
    const urn = createUrn(this.o.stack, this.o.project, goal.parent, goal.type, goal.name);
    try {
      this.registeredUrns.add(urn);
      const { ref, provider } = await this.providerFor(goal.type, goal.provider, goal.version);
      const inputs = resolveOutputValues(goal.inputs);
      this.emit('read', urn, goal.type, 'start', { new: { urn, custom: true, type: goal.type, id: goal.id, inputs, parent: goal.parent || undefined, external: true, provider: ref } });
      // Pulumi's ReadStep sends the inputs as the state too: a dynamic provider finds its code there
      const res = await this.providerStep(() => provider.read({ urn, name: goal.name, type: goal.type }, goal.id, inputs, inputs));
      if (!res) throw new Error(`resource '${goal.id}' does not exist`);
      const outputs = markSecretOutputs(res.outputs, goal.additionalSecretOutputs);
      const old = this.claimOld(urn, []);
      const state: ResourceState = {
        urn, custom: true, type: goal.type, id: res.id, inputs: res.inputs ?? inputs, outputs, parent: goal.parent || undefined,
        external: true, provider: ref, dependencies: goal.dependencies.length ? goal.dependencies : undefined,
        additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
      };
      this.record(urn, state, old);
      await this.save();
      this.emit('read', urn, goal.type, 'done', { old, new: state });
      return { urn, outputs };
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      throw this.fail(urn, err);
    }
  }

  /** Handles Invoke: builtins in process, everything else through the package's provider. */
  invoke(tok: string, args: PropertyMap, explicit: string | undefined, version: string | undefined): Promise<{ result: PropertyMap; failures: { property: string; reason: string }[] }> {
    return this.track(this.invokeNow(tok, args, explicit, version));
  }

  private async invokeNow(tok: string, args: PropertyMap, explicit: string | undefined, version: string | undefined): Promise<{ result: PropertyMap; failures: { property: string; reason: string }[] }> {
    this.assertRunning();
    const plainArgs = resolveOutputValues(args);
    if (tok.startsWith('pulumi:pulumi:')) return this.o.builtins.invoke(tok, plainArgs);
    const { provider } = await this.providerFor(tok, explicit, version);
    return this.sem.run(() => provider.invoke(tok, plainArgs, this.o.preview));
  }

  // ----- refresh -----

  /**
   * Reads the custom resources of the base state again (those `--target`/`--exclude` allow), resolving pending
   * operations left by an interrupted run first (see refresh-steps.ts).
   */
  refreshAll(): Promise<void> {
    return this.track(this.refreshAllNow());
  }

  private async refreshAllNow(): Promise<void> {
    if (!this.verifyTargets(false)) return;
    const ctx = this.context();
    resolveBasePending(ctx, this.o.base.resources);
    const states = [...this.o.base.resources];
    await refreshStates(ctx, states, this.targeting.refreshable(states));
    if (!this.o.preview) await this.save();
  }

  /** What refresh steps need of the executor. */
  private context(): StepContext {
    return {
      preview: this.o.preview,
      snapshots: this.o.snapshots,
      events: this.o.events,
      emit: (op, urn, type, phase, extra) => this.emit(op, urn, type, phase, extra),
      providerStep: (fn, pending) => this.providerStep(fn, pending),
      providerByRef: (ref) => this.providerByRef(ref),
      fail: (urn, err) => this.fail(urn, err),
    };
  }

  // ----- deletes -----

  /**
   * Resources to delete at the end of an update: replaced ones and those not registered this run, as far as
   * `--target`/`--exclude` allow. A targeted run that would delete something not named by `--target` is refused
   * (unless `--target-dependents`), before anything is deleted.
   */
  deletionCandidates(): ResourceState[] {
    const deletable = this.targeting.deletable(this.o.base.resources);
    return this.allowedDeletes([...this.pendingDeletes, ...this.live.values()].filter(deletable));
  }

  /** Everything in the base state that `--target`/`--exclude` allow (destroy). */
  allBase(): ResourceState[] {
    if (!this.verifyTargets(false)) return [];
    const deletable = this.targeting.deletable(this.o.base.resources);
    const out = [...this.pendingDeletes, ...this.live.values()].filter(deletable);
    for (const r of out) this.live.delete(r.urn);
    return this.allowedDeletes(out);
  }

  private allowedDeletes(candidates: ResourceState[]): ResourceState[] {
    const untargeted = this.targeting.untargetedDeletes(candidates);
    if (untargeted.length === 0) return candidates;
    for (const urn of untargeted) this.refuse(untargetedDeleteMessage(urn), urn);
    // a preview goes on to show every delete; a real run deletes nothing
    return this.o.preview ? candidates : [];
  }

  /**
   * Deletes the given states in reverse dependency order: each waits for every dependent (by dependency, property
   * dependency, parent, provider or deletedWith) to be deleted first; independent deletes run in parallel.
   */
  deleteAll(states: ResourceState[]): Promise<void> {
    return this.track(this.deleteAllNow(states));
  }

  private async deleteAllNow(states: ResourceState[]): Promise<void> {
    const order = new Map<ResourceState, number>(this.o.base.resources.map((r, i) => [r, i]));
    const position = (s: ResourceState) => order.get(s) ?? order.get(this.o.base.resources.find((b) => b.urn === s.urn && b.id === s.id)!) ?? 0;
    const deletingUrns = new Set(states.map((s) => s.urn));
    await runDeletes(states, position, (s) => {
      this.assertRunning();
      return this.deleteOne(s, s.delete ? 'delete-replaced' : 'delete', deletingUrns);
    });
  }

  /**
   * Deletes one resource and returns the state left behind. With `forReplacement` (delete-before-replace) the
   * state stays, marked `pendingReplacement`, until the replacement is recorded, so references to its URN stay
   * valid in between.
   */
  private async deleteOne(s: ResourceState, op: 'delete' | 'delete-replaced', deletingUrns: ReadonlySet<string>, forReplacement = false): Promise<ResourceState> {
    const urn = s.urn;
    try {
      if (!forReplacement && deleteIsProtected(s)) throw new ProtectedDeleteError(urn);
      this.assertRunning();
      this.emit(op, urn, s.type, 'start', { old: s });
      const callProvider =
        s.custom && !isProviderType(s.type) && !s.external && !s.retainOnDelete && !s.pendingReplacement && !(s.deletedWith && deletingUrns.has(s.deletedWith));
      const marked: ResourceState = { ...s, pendingReplacement: true };
      if (!this.o.preview) {
        if (callProvider) {
          const provider = await this.providerByRef(s.provider ?? '');
          const start: PendingStart = { resource: s, type: 'deleting' };
          try {
            await this.providerStep(() => provider.delete({ urn, name: urnName(urn), type: s.type }, s.id ?? '', s.outputs ?? {}, s.inputs ?? {}, s.customTimeouts?.delete), start);
          } finally {
            if (start.begun) this.o.snapshots.endOp(start.begun);
          }
        }
        if (forReplacement) this.o.snapshots.replaceBase(s, marked);
        else this.o.snapshots.removeBase(s);
        await this.save();
      }
      this.emit(op, urn, s.type, 'done', { old: s });
      return forReplacement ? marked : s;
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      this.emit(op, urn, s.type, 'failed', { error: err instanceof Error ? err.message : String(err), old: s });
      // as Pulumi: nothing was attempted, so the other deletes go on and every protected resource is reported
      if (err instanceof ProtectedDeleteError) throw this.fail(urn, err, { keepGoing: true });
      throw this.fail(urn, err);
    }
  }
}
