/**
 * The live snapshot of a running deployment: resources registered this run (in completion order), followed by the
 * base resources not yet superseded or deleted, plus pending operations. Saves are coalesced: while one save is in
 * flight, later mutations are folded into the next one.
 *
 * A save writes either a whole checkpoint or, when the backend takes a journal, only what changed since the last
 * save: every mutation is logged and turned into Pulumi journal entries at save time (one batch per save). A journal
 * save costs what changed, not the stack: integrity is checked incrementally (`SnapshotIntegrity`), and the whole
 * snapshot is checked only by the last save of a run (`saveFinal`) and, after an alias rename, at each save.
 */
import { JournalWriter } from '../../../shared/core/journal/journal-writer.js';
import type { DeploymentV3 as StoredDeployment } from '../../../shared/core/checkpoints/types.js';
import {
  sameStoredState,
  verifyIntegrity,
  type DeploymentSerializer,
  type JournalPersister,
  type PendingOperation,
  type PendingOperationType,
  type ResourceState,
  type Snapshot,
  type SnapshotPersister,
} from './deployment.js';
import { SnapshotIntegrity } from './snapshot-integrity.js';
import { formatProviderRef, parseProviderRef } from '../resource/urn.js';

/** Journal mode: entries go to `persister`; `base` is the stored deployment the update began from. */
export interface JournalTarget {
  persister: JournalPersister;
  base: unknown;
}

type Mutation =
  | { t: 'begin'; op: PendingOperation }
  | { t: 'end'; op: PendingOperation }
  | { t: 'new'; state: ResourceState; baseIndex?: number; baseState?: ResourceState }
  | { t: 'outputs'; prev: ResourceState; next: ResourceState }
  | { t: 'removeBase'; index: number }
  | { t: 'removeNew'; state: ResourceState }
  | { t: 'replaceBase'; index: number; next: ResourceState }
  | { t: 'rename' }
  | { t: 'clearBasePending' };

/** Tracks the deployment's state and persists it. */
export class SnapshotManager {
  private readonly news: (ResourceState | undefined)[] = [];
  private readonly newIndex = new Map<ResourceState, number>();
  private readonly base: (ResourceState | undefined)[];
  private readonly baseIndex = new Map<ResourceState, number>();
  private readonly pending = new Set<PendingOperation>();
  private readonly renamed = new Map<string, string>();
  private dirty = false;
  private inflight: Promise<void> | undefined;
  private saveError: unknown;
  private lastSaveEnd = 0;
  private fullCheckDue = false;
  private integrity?: SnapshotIntegrity;
  private readonly journal?: { target: JournalTarget; writer: JournalWriter; log: Mutation[]; ops: Map<PendingOperation, number>; newOps: Map<ResourceState, number>; started: boolean };

  /**
   * `minSaveIntervalMs` spaces saves out: mutations arriving within the window share one save, which keeps the
   * number of full-state writes well below one per step on large stacks. With `journal`, saves send journal entries
   * there and `persister` is not used.
   */
  constructor(
    base: Snapshot,
    private readonly serializer: DeploymentSerializer,
    private readonly persister: SnapshotPersister | undefined,
    private readonly now: () => number,
    private readonly minSaveIntervalMs = 0,
    journal?: JournalTarget,
  ) {
    this.base = [...base.resources];
    this.base.forEach((r, i) => r && this.baseIndex.set(r, i));
    for (const op of base.pendingOperations) this.pending.add(op);
    if (journal) {
      this.journal = { target: journal, writer: new JournalWriter(), log: [], ops: new Map(), newOps: new Map(), started: false };
      this.integrity = new SnapshotIntegrity(base.resources);
    }
  }

  private logMutation(m: Mutation): void {
    this.journal?.log.push(m);
  }

  /** Pending operations carried over from the base snapshot. */
  basePending(): PendingOperation[] {
    return [...this.pending];
  }

  /**
   * Drops every pending operation carried over from the base (refresh resolves them). Call before any other
   * mutation of the run: in journal mode it rewrites the replay's base.
   */
  clearBasePending(): void {
    this.pending.clear();
    this.logMutation({ t: 'clearBasePending' });
  }

  /** Appends a state registered this run; `supersedes` (a base state) leaves the snapshot. */
  recordNew(state: ResourceState, supersedes?: ResourceState): void {
    this.newIndex.set(state, this.news.length);
    this.news.push(state);
    this.integrity?.add(state);
    const baseIndex = supersedes ? this.baseIndex.get(supersedes) : undefined;
    this.logMutation({ t: 'new', state, baseIndex, baseState: baseIndex === undefined ? undefined : supersedes });
    if (supersedes) this.removeBase(supersedes, false);
  }

  /** Replaces a state recorded this run (component outputs, refreshed values). */
  replaceNew(prev: ResourceState, next: ResourceState): void {
    const i = this.newIndex.get(prev);
    if (i === undefined) throw new Error(`internal: ${prev.urn} is not a new state`);
    this.news[i] = next;
    this.newIndex.delete(prev);
    this.newIndex.set(next, i);
    this.integrity?.remove(prev);
    this.integrity?.add(next);
    this.logMutation({ t: 'outputs', prev, next });
  }

  /** Removes a base state (deleted, superseded, or discarded). */
  removeBase(state: ResourceState, log = true): void {
    const i = this.baseIndex.get(state);
    if (i === undefined) return;
    this.base[i] = undefined;
    this.baseIndex.delete(state);
    this.integrity?.remove(state);
    if (log) this.logMutation({ t: 'removeBase', index: i });
  }

  /**
   * Removes a state, whether of the base or recorded this run (a destroy that ran the program deletes the states its
   * registrations recorded).
   */
  remove(state: ResourceState): void {
    const i = this.newIndex.get(state);
    if (i === undefined) return this.removeBase(state);
    this.news[i] = undefined;
    this.newIndex.delete(state);
    this.integrity?.remove(state);
    this.logMutation({ t: 'removeNew', state });
  }

  /** Replaces a base state in place (marking it for deletion, or refreshing it). */
  replaceBase(prev: ResourceState, next: ResourceState): void {
    const i = this.baseIndex.get(prev);
    if (i === undefined) throw new Error(`internal: ${prev.urn} is not a base state`);
    this.base[i] = next;
    this.baseIndex.delete(prev);
    this.baseIndex.set(next, i);
    this.integrity?.remove(prev);
    this.integrity?.add(next);
    this.logMutation({ t: 'replaceBase', index: i, next });
  }

  /**
   * Records that a resource moved from `from` to `to` through an alias, once its new state is recorded: references
   * in other states (base ones, and old ones kept as they are this run) follow.
   */
  rename(from: string, to: string): void {
    if (from === to || this.renamed.get(from) === to) return;
    this.renamed.set(from, to);
    this.logMutation({ t: 'rename' });
  }

  /** Starts a pending operation. */
  beginOp(resource: ResourceState, type: PendingOperationType): PendingOperation {
    const op = { resource, type };
    this.pending.add(op);
    this.logMutation({ t: 'begin', op });
    return op;
  }

  /** Clears a pending operation. */
  endOp(op: PendingOperation): void {
    this.pending.delete(op);
    this.logMutation({ t: 'end', op });
  }

  /** The current snapshot. */
  snapshot(): Snapshot {
    const resources: ResourceState[] = [];
    for (const r of [...this.news, ...this.base]) if (r) resources.push(this.renamed.size ? this.rewrite(r) : r);
    return { resources, pendingOperations: [...this.pending] };
  }

  /** `r` with every reference to a renamed URN following the rename; `r` itself when none does. */
  private rewrite(r: ResourceState): ResourceState {
    const m = (u: string) => this.renamed.get(u) ?? u;
    const provider = r.provider && this.renamed.size ? this.renamedProvider(r.provider) : r.provider;
    const touches =
      provider !== r.provider ||
      (r.parent && this.renamed.has(r.parent)) ||
      r.dependencies?.some((d) => this.renamed.has(d)) ||
      Object.values(r.propertyDependencies ?? {}).some((ds) => ds.some((d) => this.renamed.has(d))) ||
      (r.deletedWith && this.renamed.has(r.deletedWith));
    if (!touches) return r;
    return {
      ...r,
      provider,
      parent: r.parent ? m(r.parent) : r.parent,
      dependencies: r.dependencies?.map(m),
      propertyDependencies: r.propertyDependencies
        ? Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, ds]) => [k, ds.map(m)]))
        : undefined,
      deletedWith: r.deletedWith ? m(r.deletedWith) : r.deletedWith,
    };
  }

  private renamedProvider(ref: string): string {
    const { urn, id } = parseProviderRef(ref);
    const to = this.renamed.get(urn);
    return to ? formatProviderRef(to, id) : ref;
  }

  /** The last save of a run: like `save`, and it checks the whole snapshot, order included. */
  saveFinal(): Promise<void> {
    this.fullCheckDue = true;
    return this.save();
  }

  /** Persists the current snapshot; concurrent callers share one save loop. Rejects if any save failed. */
  save(): Promise<void> {
    if (!this.persister && !this.journal) return Promise.resolve();
    if (this.saveError) return Promise.reject(this.saveError);
    this.dirty = true;
    this.inflight ??= this.drain();
    return this.inflight;
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        const wait = this.lastSaveEnd + this.minSaveIntervalMs - performance.now();
        // Waiting out the current turn of the event loop lets every step that asked for a save in it share this one:
        // provider and program answers arrive in bursts, and a sink that answers at once would otherwise get one
        // save per mutation. Each caller still resolves only once its own change is persisted.
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else await new Promise((r) => setImmediate(r));
        this.dirty = false;
        if (this.journal) await this.saveJournal();
        else await this.persister!.save(await this.serializer.serialize(this.snapshot(), this.now));
        this.lastSaveEnd = performance.now();
      }
    } catch (err) {
      this.saveError = err;
      throw err;
    } finally {
      // cleared in the same turn as the last dirty check, so a later save() always starts a new loop
      this.inflight = undefined;
    }
  }

  /** Turns the mutations logged since the last save into journal entries and appends them. */
  private async saveJournal(): Promise<void> {
    const j = this.journal!;
    const log = j.log;
    j.log = [];
    this.checkIntegrity();
    // the state each mutation writes, base states with references following renames
    const written = new Map<Mutation, ResourceState>();
    for (const m of log) {
      if (m.t === 'begin') written.set(m, m.op.resource);
      else if (m.t === 'new') written.set(m, this.rewrite(m.state));
      else if (m.t === 'outputs') written.set(m, m.next);
      else if (m.t === 'replaceBase') written.set(m, this.rewrite(m.next));
    }
    const renamed = log.some((m) => m.t === 'rename');
    const renames = renamed ? this.renamedBaseStates() : [];
    const renamedNews = renamed ? this.renamedNewStates() : [];
    const states = [...written.values(), ...renames.map(([, r]) => r), ...renamedNews.map(([, r]) => r)];
    const stored = await this.serializer.toStored(states);
    const storedOf = new Map(states.map((r, i) => [r, stored[i]!]));
    const w = j.writer;
    if (!j.started) {
      j.started = true;
      const provider = this.serializer.secretsProvider;
      if (provider) w.secretsManager(provider);
    }
    for (const m of log) {
      switch (m.t) {
        case 'begin':
          j.ops.set(m.op, w.begin({ resource: storedOf.get(written.get(m)!)!, type: m.op.type }));
          break;
        case 'end': {
          const op = j.ops.get(m.op);
          // the state the operation produced, if any, was recorded as its own entry; this only closes it
          if (op !== undefined) w.failure(op);
          j.ops.delete(m.op);
          break;
        }
        case 'new': {
          const state = storedOf.get(written.get(m)!)!;
          if (m.baseIndex !== undefined) {
            j.newOps.set(m.state, w.same(m.baseIndex, state, !sameStoredState(written.get(m)!, m.baseState!)));
          } else {
            const op = w.begin();
            w.success(op, { state });
            j.newOps.set(m.state, op);
          }
          break;
        }
        case 'outputs': {
          const op = j.newOps.get(m.prev);
          if (op === undefined) throw new Error(`internal: no journal operation for ${m.prev.urn}`);
          w.outputs({ op }, storedOf.get(written.get(m)!)!);
          j.newOps.delete(m.prev);
          j.newOps.set(m.next, op);
          break;
        }
        case 'removeBase': {
          const op = w.begin();
          w.success(op, { old: { base: m.index } });
          break;
        }
        case 'removeNew': {
          const op = j.newOps.get(m.state);
          if (op === undefined) throw new Error(`internal: no journal operation for ${m.state.urn}`);
          w.remove({ op });
          j.newOps.delete(m.state);
          break;
        }
        case 'replaceBase':
          w.outputs({ base: m.index }, storedOf.get(written.get(m)!)!);
          break;
        case 'clearBasePending':
          w.write(this.baseWithoutPending());
          break;
        case 'rename':
          break;
      }
    }
    for (const [index, state] of renames) w.outputs({ base: index }, storedOf.get(state)!);
    for (const [recorded, state] of renamedNews) {
      const op = j.newOps.get(recorded);
      if (op === undefined) throw new Error(`internal: no journal operation for ${recorded.urn}`);
      w.outputs({ op }, storedOf.get(state)!);
    }
    const entries = w.take();
    if (entries.length) await j.target.persister.append(entries);
  }

  /**
   * Checks what changed since the last save, or the whole snapshot when that is due. Renames rewrite references
   * inside base states the incremental counts were made from, so after one each save checks everything.
   */
  private checkIntegrity(): void {
    if (!this.fullCheckDue && this.renamed.size === 0) {
      this.integrity!.verify();
      return;
    }
    const { resources } = this.snapshot();
    verifyIntegrity(resources);
    this.integrity = new SnapshotIntegrity(resources);
    this.fullCheckDue = false;
  }

  /** Base states whose references follow a rename, rewritten, by base index. */
  private renamedBaseStates(): [number, ResourceState][] {
    const out: [number, ResourceState][] = [];
    this.base.forEach((r, i) => {
      if (!r) return;
      const rewritten = this.rewrite(r);
      if (rewritten !== r) out.push([i, rewritten]);
    });
    return out;
  }

  /** States recorded this run (old ones kept as they are) whose references follow a rename: recorded → rewritten. */
  private renamedNewStates(): [ResourceState, ResourceState][] {
    const out: [ResourceState, ResourceState][] = [];
    for (const r of this.news) {
      if (!r) continue;
      const rewritten = this.rewrite(r);
      if (rewritten !== r) out.push([r, rewritten]);
    }
    return out;
  }

  /** The stored base deployment with the same resources in the same order, minus its pending operations. */
  private baseWithoutPending(): StoredDeployment {
    const base = (this.journal!.target.base ?? {}) as StoredDeployment;
    const { pending_operations: _dropped, ...rest } = base;
    const provider = this.serializer.secretsProvider ?? base.secrets_providers;
    return { ...rest, manifest: base.manifest ?? { time: new Date(this.now()).toISOString(), magic: '', version: '' }, metadata: base.metadata ?? {}, ...(provider ? { secrets_providers: provider } : {}) };
  }
}
