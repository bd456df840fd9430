/**
 * The live snapshot of a running deployment: resources registered this run (in completion order), followed by the
 * base resources not yet superseded or deleted, plus pending operations. Saves are coalesced: while one save is in
 * flight, later mutations are folded into the next one.
 */
import type { DeploymentSerializer, PendingOperation, PendingOperationType, ResourceState, Snapshot, SnapshotPersister } from './deployment.js';

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

  /**
   * `minSaveIntervalMs` spaces saves out: mutations arriving within the window share one save, which keeps the
   * number of full-state writes well below one per step on large stacks.
   */
  constructor(
    base: Snapshot,
    private readonly serializer: DeploymentSerializer,
    private readonly persister: SnapshotPersister | undefined,
    private readonly now: () => number,
    private readonly minSaveIntervalMs = 0,
  ) {
    this.base = [...base.resources];
    this.base.forEach((r, i) => r && this.baseIndex.set(r, i));
    for (const op of base.pendingOperations) this.pending.add(op);
  }

  /** Pending operations carried over from the base snapshot. */
  basePending(): PendingOperation[] {
    return [...this.pending];
  }

  /** Drops a pending operation without a save (refresh resolves them). */
  clearPending(op: PendingOperation): void {
    this.pending.delete(op);
  }

  /** Appends a state registered this run; `supersedes` (a base state) leaves the snapshot. */
  recordNew(state: ResourceState, supersedes?: ResourceState): void {
    this.newIndex.set(state, this.news.length);
    this.news.push(state);
    if (supersedes) this.removeBase(supersedes);
  }

  /** Replaces a state recorded this run (component outputs, refreshed values). */
  replaceNew(prev: ResourceState, next: ResourceState): void {
    const i = this.newIndex.get(prev);
    if (i === undefined) throw new Error(`internal: ${prev.urn} is not a new state`);
    this.news[i] = next;
    this.newIndex.delete(prev);
    this.newIndex.set(next, i);
  }

  /** Removes a base state (deleted, superseded, or discarded). */
  removeBase(state: ResourceState): void {
    const i = this.baseIndex.get(state);
    if (i === undefined) return;
    this.base[i] = undefined;
    this.baseIndex.delete(state);
  }

  /** Replaces a base state in place (marking it for deletion, or refreshing it). */
  replaceBase(prev: ResourceState, next: ResourceState): void {
    const i = this.baseIndex.get(prev);
    if (i === undefined) throw new Error(`internal: ${prev.urn} is not a base state`);
    this.base[i] = next;
    this.baseIndex.delete(prev);
    this.baseIndex.set(next, i);
  }

  /** Records that a resource moved from `from` to `to` through an alias; references in base states follow. */
  rename(from: string, to: string): void {
    if (from !== to) this.renamed.set(from, to);
  }

  /** Starts a pending operation. */
  beginOp(resource: ResourceState, type: PendingOperationType): PendingOperation {
    const op = { resource, type };
    this.pending.add(op);
    return op;
  }

  /** Clears a pending operation. */
  endOp(op: PendingOperation): void {
    this.pending.delete(op);
  }

  /** The current snapshot. */
  snapshot(): Snapshot {
    const resources: ResourceState[] = [];
    for (const r of this.news) if (r) resources.push(r);
    for (const r of this.base) if (r) resources.push(this.renamed.size ? this.rewrite(r) : r);
    return { resources, pendingOperations: [...this.pending] };
  }

  private rewrite(r: ResourceState): ResourceState {
    const m = (u: string) => this.renamed.get(u) ?? u;
    const touches =
      (r.parent && this.renamed.has(r.parent)) ||
      r.dependencies?.some((d) => this.renamed.has(d)) ||
      Object.values(r.propertyDependencies ?? {}).some((ds) => ds.some((d) => this.renamed.has(d))) ||
      (r.deletedWith && this.renamed.has(r.deletedWith));
    if (!touches) return r;
    return {
      ...r,
      parent: r.parent ? m(r.parent) : r.parent,
      dependencies: r.dependencies?.map(m),
      propertyDependencies: r.propertyDependencies
        ? Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, ds]) => [k, ds.map(m)]))
        : undefined,
      deletedWith: r.deletedWith ? m(r.deletedWith) : r.deletedWith,
    };
  }

  /** Persists the current snapshot; concurrent callers share one save loop. Rejects if any save failed. */
  save(): Promise<void> {
    if (!this.persister) return Promise.resolve();
    if (this.saveError) return Promise.reject(this.saveError);
    this.dirty = true;
    this.inflight ??= this.drain();
    return this.inflight;
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        const wait = this.lastSaveEnd + this.minSaveIntervalMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        this.dirty = false;
        const checkpoint = await this.serializer.serialize(this.snapshot(), this.now);
        await this.persister!.save(checkpoint);
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
}
