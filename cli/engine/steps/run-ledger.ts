/**
 * The resource states of one run, as the step executor's parts share them: the base states no registration has
 * claimed yet (what an update deletes at its end), what was registered or kept unchanged this run, what was marked
 * for deletion, and what was skipped. It moves states in the snapshot as they change hands and never calls a
 * provider.
 */
import type { ResourceState, Snapshot } from '../state/deployment.js';
import type { SnapshotManager } from '../state/snapshot-manager.js';
import type { AliasResolver } from './aliases.js';
import { requiredUrns } from './targeting.js';

/** Which states of one run are claimed, recorded, kept, condemned or skipped. */
export class RunLedger {
  /** Base states not claimed by a registration yet (including ones deleted for a replacement: `pendingReplacement`). */
  readonly live = new Map<string, ResourceState>();
  /** States to delete at the end of the run: replaced ones, and those the base state left pending deletion. */
  readonly pendingDeletes: ResourceState[] = [];
  /** URNs registered (or read) this run, whatever became of them. */
  readonly registeredUrns = new Set<string>();
  /** The `deleteBeforeReplace` option of each registration that set it (Pulumi's goals), which AnalyzeStack shows. */
  readonly deleteBeforeReplace = new Map<string, boolean>();
  /** The state each URN has this run. */
  readonly registered = new Map<string, ResourceState>();
  /** New resources not created because they are not targeted (Pulumi's skipped creates). */
  readonly skippedCreates = new Set<string>();
  /** Resources whose step failed or was skipped under `continueOnError`; what depends on them is skipped. */
  readonly skipped = new Set<string>();
  /** URNs of the base state. */
  readonly baseUrns: Set<string>;
  /** Base states kept unchanged ahead of their registration (untargeted resources and what they need). */
  private readonly carried = new Set<ResourceState>();

  constructor(
    private readonly base: Snapshot,
    private readonly snapshots: SnapshotManager,
    private readonly aliases: AliasResolver,
    private readonly preview: boolean,
  ) {
    this.baseUrns = new Set(base.resources.map((r) => r.urn));
    for (const r of base.resources) {
      if (r.delete) this.pendingDeletes.push(r);
      else this.live.set(r.urn, r);
    }
  }

  /** A resource of this run or of the base state, for `getResource`. */
  lookup(urn: string): ResourceState | undefined {
    return this.registered.get(urn) ?? this.base.resources.find((r) => r.urn === urn && !r.delete);
  }

  /** Takes the base state registered under `urn` or one of its aliases out of the pool of unclaimed states. */
  claimOld(urn: string, aliases: string[]): ResourceState | undefined {
    for (const candidate of [urn, ...aliases]) {
      const old = this.live.get(candidate);
      if (!old || (candidate !== urn && this.registeredUrns.has(candidate))) continue;
      this.live.delete(candidate);
      this.aliases.recordMatch(urn, candidate);
      return old;
    }
    return undefined;
  }

  /**
   * Records a state of this run; `supersedes` (the old state) leaves the snapshot. A state found through an alias
   * renames its old URN from here on: until its new state is in the snapshot, references to it keep the old URN,
   * so no save in between names a resource the snapshot does not hold (Pulumi's `NormalizeURNReferences`).
   */
  record(urn: string, state: ResourceState, supersedes?: ResourceState): void {
    const oldUrn = this.aliases.oldUrnOf(urn);
    if (oldUrn) this.snapshots.rename(oldUrn, urn);
    // a state recorded earlier this run (kept unchanged, or imported) is replaced where it stands
    if (supersedes && (this.carried.has(supersedes) || this.registered.get(urn) === supersedes)) {
      this.carried.delete(supersedes);
      this.snapshots.replaceNew(supersedes, state);
    } else {
      this.snapshots.recordNew(state, supersedes);
    }
    this.registered.set(urn, state);
  }

  /**
   * Keeps an untargeted (or skipped) resource's old state as it is. What it needs and has not been registered is
   * kept first, so the state stays ordered (Pulumi's untargeted same steps).
   */
  carry(old: ResourceState): void {
    for (const u of requiredUrns(old)) {
      const dep = this.live.get(u);
      if (!dep || this.registeredUrns.has(u)) continue;
      this.live.delete(u);
      this.carry(dep);
    }
    this.snapshots.recordNew(old, old);
    this.carried.add(old);
    this.registered.set(old.urn, old);
  }

  /** Replaces a state recorded this run (new outputs) where it stands. */
  replaceRegistered(cur: ResourceState, next: ResourceState): void {
    if (this.carried.has(cur)) {
      this.carried.delete(cur);
      this.carried.add(next);
    }
    this.snapshots.replaceNew(cur, next);
    this.registered.set(cur.urn, next);
  }

  /**
   * Marks a replaced old state for deletion at the end of the run. A preview marks it too (only not in the
   * snapshot), as Pulumi's `CreateStep.Apply` does: its end-of-run step is then a delete-replaced, as the update's.
   */
  condemn(old: ResourceState): void {
    const marked = { ...old, delete: true };
    if (!this.preview) this.snapshots.replaceBase(old, marked);
    this.pendingDeletes.push(marked);
  }

  /** A resource a registration needs but which was not created (not targeted), if any. */
  skippedDependency(state: ResourceState): string | undefined {
    return requiredUrns(state).find((u) => this.skippedCreates.has(u));
  }
}
