import { SnapshotIntegrityError, type ResourceState } from './deployment.js';

/** `urn::id`: how a resource names its provider. */
const providerRef = (r: ResourceState) => `${r.urn}::${r.id}`;
const isProvider = (r: ResourceState) => r.type.startsWith('pulumi:providers:') && r.id !== undefined;

function referencesOf(r: ResourceState): string[] {
  const refs = [...(r.dependencies ?? []), ...Object.values(r.propertyDependencies ?? {}).flat()];
  if (r.parent) refs.push(r.parent);
  if (r.deletedWith) refs.push(r.deletedWith);
  return refs;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

/**
 * The integrity of a snapshot kept up to date as states enter and leave it, so that a save checks only what changed
 * since the last one: each state added refers to a provider, parent, dependencies and deletedWith that are in the
 * snapshot, its URN is live at most once, and no state left behind still refers to a URN or provider that is gone.
 * That is what `verifyIntegrity` checks, except for order (a reference to a state later in the snapshot): the
 * snapshot manager runs the full check for that at the end of every run and after renames.
 */
export class SnapshotIntegrity {
  private readonly present = new Map<string, number>();
  private readonly live = new Map<string, number>();
  private readonly providers = new Map<string, number>();
  private readonly referrers = new Map<string, number>();
  private readonly providerReferrers = new Map<string, number>();
  private readonly added = new Set<ResourceState>();
  private readonly gone = new Set<string>();
  private readonly goneProviders = new Set<string>();

  /** Starts from `resources`, taken as checked. */
  constructor(resources: Iterable<ResourceState>) {
    for (const r of resources) this.count(r, 1);
  }

  /** A state entered the snapshot. */
  add(r: ResourceState): void {
    this.count(r, 1);
    this.added.add(r);
  }

  /** A state left the snapshot. */
  remove(r: ResourceState): void {
    this.count(r, -1);
    this.added.delete(r);
    this.gone.add(r.urn);
    if (isProvider(r)) this.goneProviders.add(providerRef(r));
  }

  /** Checks the states added and the URNs removed since the last call; `SnapshotIntegrityError` names the first fault. */
  verify(): void {
    try {
      for (const r of this.added) {
        if (r.provider !== undefined && r.provider !== '' && !this.providers.has(r.provider)) {
          throw new SnapshotIntegrityError(`resource ${r.urn} refers to unknown provider ${r.provider}`);
        }
        for (const ref of referencesOf(r)) {
          if (!this.present.has(ref)) throw new SnapshotIntegrityError(`resource ${r.urn} refers to unknown resource ${ref}`);
        }
        if (!r.delete && (this.live.get(r.urn) ?? 0) > 1) throw new SnapshotIntegrityError(`resource ${r.urn} is duplicated`);
      }
      for (const urn of this.gone) {
        if (!this.present.has(urn) && this.referrers.has(urn)) {
          throw new SnapshotIntegrityError(`resource ${urn} left the snapshot while other resources still refer to it`);
        }
      }
      for (const ref of this.goneProviders) {
        if (!this.providers.has(ref) && this.providerReferrers.has(ref)) {
          throw new SnapshotIntegrityError(`provider ${ref} left the snapshot while resources still use it`);
        }
      }
    } finally {
      this.added.clear();
      this.gone.clear();
      this.goneProviders.clear();
    }
  }

  private count(r: ResourceState, by: 1 | -1): void {
    bump(this.present, r.urn, by);
    if (!r.delete) bump(this.live, r.urn, by);
    if (isProvider(r)) bump(this.providers, providerRef(r), by);
    if (r.provider) bump(this.providerReferrers, r.provider, by);
    for (const ref of referencesOf(r)) bump(this.referrers, ref, by);
  }
}
