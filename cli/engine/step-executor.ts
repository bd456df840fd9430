/**
 * Turns resource registrations into steps (same, create, update, replace, read, delete) against providers and
 * records their results in the snapshot. Independent registrations run concurrently up to `parallel`; the program
 * itself orders dependents after their dependencies.
 */
import { randomBytes } from 'node:crypto';
import type { BuiltinProvider } from './builtin-provider.js';
import { defaultProviderInputs } from './config.js';
import type { PendingOperation, PendingOperationType, ResourceState, Snapshot } from './deployment.js';
import type { ChangeSummary, EngineEvents, StepOp } from './events.js';
import type { StackConfig } from './language-host.js';
import { ResourceInitError, type DiffResult, type ResourceRef } from './provider-client.js';
import { pluginDownloadUrlOf, withPluginDownloadUrl } from './provider-internals.js';
import { defaultProviderUrn, ProviderRegistry, versionOf, type Provider } from './provider-registry.js';
import {
  applyIgnoreChanges,
  changedKeys,
  deepEqual,
  markSecretOutputs,
  parsePropertyPath,
  resolveOutputValues,
  UNKNOWN,
  withUnknownKeys,
  type PropertyMap,
} from './properties.js';
import { Semaphore } from './semaphore.js';
import type { SnapshotManager } from './snapshot-manager.js';
import { createUrn, formatProviderRef, isProviderType, packageOfType, parseProviderRef, urnName } from './urn.js';

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
  dependencies: string[];
  additionalSecretOutputs: string[];
}

/** A registration's answer. */
export interface RegisterResult {
  urn: string;
  id: string;
  outputs: PropertyMap;
  result: 'success' | 'skip';
}

/** Settings of one executor. */
export interface ExecutorOptions {
  stack: string;
  project: string;
  preview: boolean;
  parallel: number;
  config: StackConfig;
  registry: ProviderRegistry;
  builtins: BuiltinProvider;
  snapshots: SnapshotManager;
  base: Snapshot;
  events: EngineEvents;
  /** Only these URNs are created, updated or deleted (`--target`). */
  targets?: ReadonlySet<string>;
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
type StepDetails = { diffKeys?: string[]; replaceKeys?: string[]; error?: string; old?: ResourceState; new?: ResourceState };

/** Runs steps for one deployment. */
export class StepExecutor {
  /** Set once any step failed or the run was cancelled; no new step starts and deletes are skipped. */
  failed = false;
  /** Set by `cancel()`: the run stops after the steps in progress, and that is not a step failure. */
  cancelled = false;
  readonly errors: string[] = [];
  readonly summary: ChangeSummary = {};

  private readonly live = new Map<string, ResourceState>();
  private readonly pendingDeletes: ResourceState[] = [];
  /** Deleted for a delete-before-replace, kept in state (`pendingReplacement`) until the replacement exists. */
  private readonly awaitingReplacement = new Map<string, ResourceState>();
  private readonly registeredUrns = new Set<string>();
  private readonly registered = new Map<string, ResourceState>();
  private readonly aliasesOf = new Map<string, string[]>();
  private readonly baseProviders = new Map<string, ResourceState>();
  private readonly defaults = new Map<string, Promise<string>>();
  private readonly sem: Semaphore;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly o: ExecutorOptions) {
    this.sem = new Semaphore(Math.max(1, o.parallel));
    for (const r of o.base.resources) {
      if (r.delete) this.pendingDeletes.push(r);
      else if (r.pendingReplacement) this.awaitingReplacement.set(r.urn, r);
      else this.live.set(r.urn, r);
      if (isProviderType(r.type) && r.id) this.baseProviders.set(formatProviderRef(r.urn, r.id), r);
    }
  }

  /** A resource of this run or of the base state, for `getResource`. */
  lookup(urn: string): ResourceState | undefined {
    return this.registered.get(urn) ?? this.o.base.resources.find((r) => r.urn === urn && !r.delete);
  }

  private emit(op: StepOp, urn: string, type: string, phase: 'start' | 'done' | 'failed', extra: StepDetails = {}): void {
    if (phase === 'done' && op !== 'create-replacement' && op !== 'delete-replaced') this.summary[op] = (this.summary[op] ?? 0) + 1;
    this.o.events.step?.({ op, urn, type, phase, preview: this.o.preview, ...extra });
  }

  /** Marks the run failed and reports the error once. */
  fail(urn: string | undefined, err: unknown): StepError {
    if (err instanceof StepError) return err;
    const message = err instanceof Error ? err.message : String(err);
    this.failed = true;
    this.errors.push(urn ? `${urn}: ${message}` : message);
    this.o.events.diag?.({ severity: 'error', message, urn });
    return err instanceof StepError ? err : new StepError(urn ?? '', message);
  }

  /**
   * Stops the run gracefully: steps already talking to a provider finish (and are saved), nothing new starts, and
   * no deletes run. Idempotent.
   */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.failed = true;
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
    if (this.failed) throw new ShuttingDownError('resource monitor shut down after an earlier failure');
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

  private targeted(urn: string): boolean {
    return !this.o.targets || this.o.targets.has(urn);
  }

  // ----- registration -----

  /** Handles RegisterResource. */
  register(goal: RegisterGoal): Promise<RegisterResult> {
    return this.track(this.registerNow(goal));
  }

  private async registerNow(goal: RegisterGoal): Promise<RegisterResult> {
    this.assertRunning();
    const urn = createUrn(this.o.stack, this.o.project, goal.parent, goal.type, goal.name);
    try {
      if (this.registeredUrns.has(urn)) throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`);
      this.registeredUrns.add(urn);
      const aliases = this.resolveAliases(goal, urn);
      this.aliasesOf.set(urn, aliases);
      const old = this.claimOld(urn, aliases);
      if (isProviderType(goal.type)) return await this.registerProvider(goal, urn, old);
      if (!goal.custom) return await this.registerComponent(goal, urn, old);
      return await this.registerCustom(goal, urn, old);
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      throw this.fail(urn, err);
    }
  }

  private resolveAliases(goal: RegisterGoal, urn: string): string[] {
    const out = new Set<string>(goal.aliasUrns);
    for (const a of goal.aliasSpecs) {
      const parent = a.noParent ? undefined : a.parentUrn || goal.parent;
      out.add(createUrn(a.stack || this.o.stack, a.project || this.o.project, parent, a.type || goal.type, a.name || goal.name));
    }
    if (goal.parent) {
      const parentName = urnName(goal.parent);
      for (const parentAlias of this.aliasesOf.get(goal.parent) ?? []) {
        const name = goal.name.startsWith(parentName) ? urnName(parentAlias) + goal.name.slice(parentName.length) : goal.name;
        out.add(createUrn(this.o.stack, this.o.project, parentAlias, goal.type, name));
      }
    }
    out.delete(urn);
    return [...out];
  }

  private claimOld(urn: string, aliases: string[]): ResourceState | undefined {
    let old = this.live.get(urn);
    if (old) {
      this.live.delete(urn);
      return old;
    }
    for (const a of aliases) {
      old = this.live.get(a);
      if (old && !this.registeredUrns.has(a)) {
        this.live.delete(a);
        this.o.snapshots.rename(a, urn);
        return old;
      }
    }
    return undefined;
  }

  private newState(goal: RegisterGoal, urn: string, extra: Partial<ResourceState>): ResourceState {
    const s: ResourceState = {
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
      ignoreChanges: goal.ignoreChanges.length ? goal.ignoreChanges : undefined,
      replaceOnChanges: goal.replaceOnChanges.length ? goal.replaceOnChanges : undefined,
      sourcePosition: goal.sourcePosition || undefined,
    };
    return s;
  }

  private record(urn: string, state: ResourceState, supersedes?: ResourceState): void {
    const awaiting = this.awaitingReplacement.get(urn);
    if (awaiting && !supersedes) {
      this.awaitingReplacement.delete(urn);
      supersedes = awaiting;
    }
    this.o.snapshots.recordNew(state, supersedes);
    this.registered.set(urn, state);
  }

  private async registerComponent(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const inputs = resolveOutputValues(goal.inputs);
    const op: StepOp = !old ? 'create' : deepEqual(old.inputs ?? {}, inputs) ? 'same' : 'update';
    const state = this.newState(goal, urn, { inputs, outputs: old?.outputs ?? {} });
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
    if (!cur) throw new Error(`cannot register outputs of unknown resource ${urn}`);
    const next: ResourceState = { ...cur, outputs: resolveOutputValues(outputs) };
    this.o.snapshots.replaceNew(cur, next);
    this.registered.set(urn, next);
    this.o.events.outputs?.({ urn, type: next.type, state: next });
    if (!deepEqual(cur.outputs, next.outputs)) await this.save();
  }

  private async registerProvider(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const pkg = packageOfType(goal.type);
    const inputs = withPluginDownloadUrl(resolveOutputValues(goal.inputs), goal.pluginDownloadURL);
    const ref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const launched = this.o.registry.launch(pkg, versionOf(inputs), pluginDownloadUrlOf(inputs));
    const provider = await launched;
    const checked = await provider.checkConfig(ref, old?.inputs ?? {}, inputs);
    if (checked.failures.length) throw new Error(`provider configuration is invalid: ${formatFailures(checked.failures)}`);
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
    if (!this.targeted(urn)) {
      if (old) {
        this.record(urn, old, old);
        return { urn, id: old.id ?? '', outputs: old.outputs ?? {}, result: 'success' };
      }
      return { urn, id: '', outputs: {}, result: 'skip' };
    }
    const rref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const rawInputs = resolveOutputValues(goal.inputs);
    const proposed = old ? applyIgnoreChanges(old.inputs ?? {}, rawInputs, goal.ignoreChanges) : rawInputs;
    const checked = await this.sem.run(() => provider.check(rref, old?.inputs ?? {}, proposed, randomBytes(32)));
    if (checked.failures.length) throw new Error(`Check failed: ${formatFailures(checked.failures)}`);
    const inputs = checked.inputs;
    if (!old) return this.create(goal, urn, ref, provider, inputs, 'create');

    let diff: DiffResult = await this.sem.run(() => provider.diff(rref, old.id ?? '', old.outputs ?? {}, old.inputs ?? {}, inputs, goal.ignoreChanges));
    if (diff.changes === 'unknown') {
      const keys = changedKeys(old.inputs ?? {}, inputs);
      diff = { changes: keys.length ? 'some' : 'none', changedKeys: keys, replaces: diff.replaces, deleteBeforeReplace: diff.deleteBeforeReplace };
    }
    const replaceKeys = new Set(diff.replaces);
    if (goal.replaceOnChanges.length) {
      const changed = diff.changedKeys.length ? diff.changedKeys : changedKeys(old.inputs ?? {}, inputs);
      for (const k of changed) if (matchesAny(k, goal.replaceOnChanges)) replaceKeys.add(k);
    }
    if (old.provider && parseProviderRef(old.provider).urn !== parseProviderRef(ref).urn) replaceKeys.add('provider');
    if (replaceKeys.size > 0) {
      const dbr = goal.deleteBeforeReplace === true || diff.deleteBeforeReplace;
      return this.replace(goal, urn, ref, provider, inputs, old, [...replaceKeys], dbr, diff.changedKeys);
    }
    if (diff.changes === 'none' && diff.replaces.length === 0) return this.same(goal, urn, ref, inputs, old);
    return this.update(goal, urn, ref, provider, inputs, old, diff.changedKeys);
  }

  private same(goal: RegisterGoal, urn: string, ref: string, inputs: PropertyMap, old: ResourceState): RegisterResult {
    const outputs = markSecretOutputs(old.outputs ?? {}, goal.additionalSecretOutputs);
    const state = this.newState(goal, urn, { id: old.id, inputs, outputs, provider: ref, created: old.created, modified: old.modified, initErrors: old.initErrors });
    this.emit('same', urn, goal.type, 'start', { old, new: state });
    this.record(urn, state, old);
    this.emit('same', urn, goal.type, 'done', { old, new: state });
    return { urn, id: old.id ?? '', outputs, result: 'success' };
  }

  private async create(goal: RegisterGoal, urn: string, ref: string, provider: Provider, inputs: PropertyMap, op: 'create' | 'create-replacement', supersedes?: ResourceState): Promise<RegisterResult> {
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
    this.record(urn, state, supersedes);
    if (start?.begun) {
      this.o.snapshots.endOp(start.begun);
      await this.save();
    }
    this.emit(op, urn, goal.type, 'done', { new: state });
    return { urn, id, outputs, result: 'success' };
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

  private async replace(goal: RegisterGoal, urn: string, ref: string, provider: Provider, inputs: PropertyMap, old: ResourceState, replaceKeys: string[], deleteBeforeReplace: boolean, diffKeys: string[]): Promise<RegisterResult> {
    if (old.protect) {
      throw new Error(`unable to replace resource "${urn}" as it is currently marked for protection; to unprotect it, remove the \`protect\` option and run \`stackyard up\``);
    }
    const proposed = this.newState(goal, urn, { inputs, provider: ref });
    this.emit('replace', urn, goal.type, 'start', { diffKeys, replaceKeys, old, new: proposed });
    const done = () => this.emit('replace', urn, goal.type, 'done', { diffKeys, replaceKeys, old, new: this.registered.get(urn) ?? proposed });
    if (deleteBeforeReplace) {
      for (const dep of await this.dependentsToReplace(old)) await this.deleteOne(dep, 'delete-replaced', new Set(), true);
      await this.deleteOne(old, 'delete-replaced', new Set(), true);
      const res = await this.create(goal, urn, ref, provider, inputs, 'create-replacement');
      done();
      return res;
    }
    let marked = old;
    if (!this.o.preview) {
      marked = { ...old, delete: true };
      this.o.snapshots.replaceBase(old, marked);
    }
    this.pendingDeletes.push(marked);
    const res = await this.create(goal, urn, ref, provider, inputs, 'create-replacement');
    done();
    return res;
  }

  /**
   * Old resources that must go before a delete-before-replace of `target`: those whose inputs depend on it and whose
   * provider says a change there forces a replacement, transitively.
   */
  private async dependentsToReplace(target: ResourceState): Promise<ResourceState[]> {
    const result: ResourceState[] = [];
    const queue = [target.urn];
    while (queue.length) {
      const urn = queue.shift()!;
      for (const d of [...this.live.values()]) {
        if (!d.custom || isProviderType(d.type) || result.includes(d)) continue;
        const keys = Object.entries(d.propertyDependencies ?? {}).filter(([, urns]) => urns.includes(urn)).map(([k]) => k);
        if (keys.length === 0) continue;
        const provider = await this.providerByRef(d.provider ?? '');
        const diff = await this.sem.run(() => provider.diff({ urn: d.urn, name: urnName(d.urn), type: d.type }, d.id ?? '', d.outputs ?? {}, d.inputs ?? {}, withUnknownKeys(d.inputs ?? {}, keys), d.ignoreChanges ?? []));
        if (diff.replaces.length === 0) continue;
        result.push(d);
        queue.push(d.urn);
      }
    }
    for (const d of result) this.live.delete(d.urn);
    return result.reverse();
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
      const res = await this.providerStep(() => provider.read({ urn, name: goal.name, type: goal.type }, goal.id, {}, inputs));
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
   * Reads every custom resource of the base state again: gone resources leave the state, changed ones are updated
   * in place. Pending operations left by an interrupted run are resolved first: an interrupted update, delete or
   * read by reading the resource back like any other; an interrupted create has no id to read, so it is cleared
   * with a warning naming the resource to check by hand (Pulumi's `--clear-pending-creates`).
   */
  refreshAll(): Promise<void> {
    return this.track(this.refreshAllNow());
  }

  private async refreshAllNow(): Promise<void> {
    this.resolveBasePending();
    const states = [...this.o.base.resources];
    await Promise.all(
      states.map(async (s) => {
        if (!s.custom || isProviderType(s.type) || s.delete) return;
        const urn = s.urn;
        try {
          const provider = await this.providerByRef(s.provider ?? '');
          const res = await this.providerStep(() => provider.read({ urn, name: urnName(urn), type: s.type }, s.id ?? '', s.outputs ?? {}, s.inputs ?? {}));
          if (!res) {
            this.emit('delete', urn, s.type, 'start', { old: s });
            if (!this.o.preview) this.o.snapshots.removeBase(s);
            this.emit('delete', urn, s.type, 'done', { old: s });
            return;
          }
          const outputs = markSecretOutputs(res.outputs, s.additionalSecretOutputs ?? []);
          const inputs = res.inputs ?? s.inputs ?? {};
          const changed = changedKeys(s.outputs ?? {}, outputs);
          const op: StepOp = changed.length || res.id !== s.id ? 'update' : 'same';
          const refreshed: ResourceState = op === 'update' ? { ...s, id: res.id, inputs, outputs } : s;
          this.emit(op, urn, s.type, 'start', { diffKeys: changed, old: s, new: refreshed });
          if (!this.o.preview && op === 'update') this.o.snapshots.replaceBase(s, refreshed);
          this.emit(op, urn, s.type, 'done', { diffKeys: changed, old: s, new: refreshed });
        } catch (err) {
          if (err instanceof ShuttingDownError) return;
          throw this.fail(urn, err);
        }
      }),
    ).catch(() => undefined);
    if (!this.o.preview) await this.save();
  }

  /** Reports how each pending operation of the base state is resolved and, unless previewing, drops them. */
  private resolveBasePending(): void {
    const pending = this.o.snapshots.basePending();
    if (pending.length === 0) return;
    const recorded = new Set(this.o.base.resources.filter((r) => r.custom && !r.delete).map((r) => r.urn));
    const will = this.o.preview ? 'will be' : 'was';
    for (const op of pending) {
      const urn = op.resource.urn;
      if (op.type !== 'creating' && recorded.has(urn)) {
        this.o.events.diag?.({ severity: 'info', urn, message: `an interrupted ${OP_NOUN[op.type]} of ${urn} is resolved by reading the resource back from its provider` });
        continue;
      }
      const why = op.type === 'creating' ? 'it has no id to read back' : 'the resource is not in the stack state';
      this.o.events.diag?.({
        severity: 'warning',
        urn,
        message:
          `the interrupted ${OP_NOUN[op.type]} of ${urn} (${op.resource.type}) ${will} cleared because ${why}; ` +
          'check by hand whether the resource exists in the cloud, and import it if it does',
      });
    }
    if (!this.o.preview) this.o.snapshots.clearBasePending();
  }

  // ----- deletes -----

  /** Resources to delete at the end of an update: replaced ones and those not registered this run. */
  deletionCandidates(): ResourceState[] {
    return [...this.pendingDeletes, ...[...this.live.values(), ...this.awaitingReplacement.values()].filter((r) => this.targeted(r.urn))];
  }

  /** Everything in the base state (destroy). */
  allBase(): ResourceState[] {
    const out = [...this.pendingDeletes, ...this.live.values(), ...this.awaitingReplacement.values()].filter((r) => this.targeted(r.urn));
    this.live.clear();
    this.awaitingReplacement.clear();
    return out;
  }

  /**
   * Deletes the given states in reverse dependency order: each waits for every dependent (by dependency, property
   * dependency, parent, provider or deletedWith) to be deleted first; independent deletes run in parallel.
   */
  deleteAll(states: ResourceState[]): Promise<void> {
    return this.track(this.deleteAllNow(states));
  }

  private async deleteAllNow(states: ResourceState[]): Promise<void> {
    if (states.length === 0) return;
    const order = new Map<ResourceState, number>(this.o.base.resources.map((r, i) => [r, i]));
    const idx = (s: ResourceState) => order.get(s) ?? order.get(this.o.base.resources.find((b) => b.urn === s.urn && b.id === s.id)!) ?? 0;
    const sorted = [...states].sort((a, b) => idx(a) - idx(b));
    const byUrn = new Map<string, ResourceState[]>();
    for (const s of sorted) byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
    const dependents = new Map<ResourceState, ResourceState[]>();
    for (const s of sorted) {
      const refs = new Set<string>([...(s.dependencies ?? []), ...Object.values(s.propertyDependencies ?? {}).flat()]);
      if (s.parent) refs.add(s.parent);
      if (s.deletedWith) refs.add(s.deletedWith);
      if (s.provider) refs.add(parseProviderRef(s.provider).urn);
      for (const u of refs) {
        for (const target of byUrn.get(u) ?? []) {
          if (target === s || idx(target) > idx(s)) continue;
          dependents.set(target, [...(dependents.get(target) ?? []), s]);
        }
      }
    }
    const deletingUrns = new Set(sorted.map((s) => s.urn));
    const done = new Map<ResourceState, Promise<void>>();
    const run = (s: ResourceState): Promise<void> => {
      let p = done.get(s);
      if (!p) {
        p = (async () => {
          const results = await Promise.allSettled((dependents.get(s) ?? []).map(run));
          if (results.some((r) => r.status === 'rejected')) throw new Error('a dependent could not be deleted');
          this.assertRunning();
          await this.deleteOne(s, s.delete ? 'delete-replaced' : 'delete', deletingUrns);
        })();
        done.set(s, p);
      }
      return p;
    };
    const results = await Promise.allSettled(sorted.map(run));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /**
   * Deletes one resource. With `forReplacement` (delete-before-replace) the state stays, marked
   * `pendingReplacement`, until the replacement is recorded, so references to its URN stay valid in between.
   */
  private async deleteOne(s: ResourceState, op: 'delete' | 'delete-replaced', deletingUrns: ReadonlySet<string>, forReplacement = false): Promise<void> {
    const urn = s.urn;
    try {
      if (s.protect && !s.delete) {
        throw new Error(`unable to delete resource "${urn}" as it is currently marked for protection; to unprotect it, set \`protect: false\` and run \`stackyard up\`, or use \`stackyard state unprotect\``);
      }
      this.assertRunning();
      this.emit(op, urn, s.type, 'start', { old: s });
      const callProvider =
        s.custom && !isProviderType(s.type) && !s.external && !s.retainOnDelete && !s.pendingReplacement && !(s.deletedWith && deletingUrns.has(s.deletedWith));
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
        if (forReplacement) {
          const marked: ResourceState = { ...s, pendingReplacement: true };
          this.o.snapshots.replaceBase(s, marked);
          this.awaitingReplacement.set(urn, marked);
        } else {
          this.o.snapshots.removeBase(s);
        }
        await this.save();
      }
      this.emit(op, urn, s.type, 'done', { old: s });
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      this.emit(op, urn, s.type, 'failed', { error: err instanceof Error ? err.message : String(err), old: s });
      throw this.fail(urn, err);
    }
  }
}

/** A pending operation to record once the step holds a slot; `begun` is set when it has been recorded. */
interface PendingStart {
  resource: ResourceState;
  type: PendingOperationType;
  begun?: PendingOperation;
}

const OP_NOUN: Record<PendingOperationType, string> = { creating: 'create', updating: 'update', deleting: 'delete', reading: 'read' };

function formatFailures(failures: { property: string; reason: string }[]): string {
  return failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join('; ');
}

/** True when a changed top-level key is covered by one of the `replaceOnChanges` paths. */
function matchesAny(key: string, paths: readonly string[]): boolean {
  return paths.some((p) => {
    const first = parsePropertyPath(p)[0];
    return first === '*' || first === key;
  });
}

