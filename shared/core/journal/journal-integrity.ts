/**
 * The integrity check of a journal batch without replaying the whole journal: a running index of the resource list
 * the replay would produce (`JournalReplayer.generate`), kept as counts (which URNs are present, which are live,
 * which provider `urn::id`s sit among the resources this update produced, how many references point at each URN)
 * plus, per base index and per operation, the few fields the check reads (`IntegrityResource`).
 *
 * It only ever proves a batch sound; it never rejects. `tryAppend` applies the batch and answers `true` when the
 * resulting list is certain to pass `findIntegrityViolation` (given that the list before the batch passed it).
 * Anything it cannot prove that way (a reference to a resource that is not earlier, a removal that others refer
 * to, an outputs entry that changes a reference, two live resources with one URN, a refresh, a rebase, aliases…)
 * answers `false`, and the caller runs the full check, which passes or names the first violation exactly as
 * before. So the verdict is the full check's in every case, and the index only decides how much work it takes.
 *
 * Why "earlier" is cheap to decide: the replayed list is the resources this update produced, in the order they
 * succeeded, followed by the surviving base resources. A resource produced now goes at the end of the first part,
 * so everything it may refer to is already in the first part; a base resource leaving is harmless when nothing
 * refers to its URN, or when the first part (which precedes every base resource) holds that URN too.
 */
import { declaresIntegrityError } from '../checkpoints/deployment-integrity.js';
import { type IntegrityResource } from '../checkpoints/index.js';
import { JournalEntryKind } from './types.js';
import type { JournalEntry } from './types.js';
import type { VersionedDeployment } from '../checkpoints/index.js';

const PROVIDER_TYPE_PREFIX = 'pulumi:providers:';

/** The fields of a resource the integrity check reads, or `undefined` for a value that is not a plain object. */
function project(value: unknown): IntegrityResource | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const r = value as IntegrityResource;
  return {
    urn: r.urn,
    type: r.type,
    id: r.id,
    custom: r.custom,
    delete: r.delete,
    pendingReplacement: r.pendingReplacement,
    provider: r.provider,
    parent: r.parent,
    dependencies: r.dependencies,
    propertyDependencies: r.propertyDependencies,
    deletedWith: r.deletedWith,
    replaceWith: r.replaceWith,
    aliases: r.aliases,
  };
}

function sameForIntegrity(a: IntegrityResource, b: IntegrityResource): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const isIndex = (v: unknown): v is number => typeof v === 'number';

/** The URNs a resource refers to (not its provider), or `undefined` when a reference field is malformed. */
function references(r: IntegrityResource): string[] | undefined {
  const out: string[] = [];
  const single = (v: unknown): boolean => {
    if (v === undefined || v === null || v === '') return true;
    if (typeof v !== 'string') return false;
    out.push(v);
    return true;
  };
  const list = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.every(single));
  const propertyDependencies = (v: unknown): boolean =>
    v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(list));
  const sound =
    single(r.parent) &&
    list(r.dependencies) &&
    propertyDependencies(r.propertyDependencies) &&
    single(r.deletedWith) &&
    list(r.replaceWith);
  return sound ? out : undefined;
}

function providerKey(r: IntegrityResource): string | undefined {
  if (typeof r.type !== 'string' || !r.type.startsWith(PROVIDER_TYPE_PREFIX)) return undefined;
  return `${String(r.urn)}::${typeof r.id === 'string' ? r.id : ''}`;
}

function providerReference(r: IntegrityResource): string | undefined {
  return typeof r.provider === 'string' && r.provider !== '' ? r.provider : undefined;
}

function withFlag(r: IntegrityResource, flag: 'delete' | 'pendingReplacement'): IntegrityResource {
  return { ...r, [flag]: true };
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/** Thrown inside the index when the journal does something it does not model; the caller uses the full check. */
class Unmodelled extends Error {}

export class JournalIntegrityIndex {
  private readonly base: IntegrityResource[];
  private readonly baseRemoved = new Set<number>();
  private readonly baseReplaced = new Map<number, IntegrityResource>();
  private readonly baseMarkedDelete = new Set<number>();
  private readonly baseMarkedPending = new Set<number>();
  /** The resources this update produced, in order of success; `undefined` once removed. */
  private readonly produced: (IntegrityResource | undefined)[] = [];
  private readonly operationIndex = new Map<number | undefined, number>();
  private readonly removedOperations = new Set<number>();

  /** Counts over the whole replayed list. */
  private readonly live = new Map<string, number>();
  private readonly urnReferences = new Map<string, number>();
  private readonly providerReferences = new Map<string, number>();
  /** Counts over the produced part only (it precedes every base resource). */
  private readonly producedUrns = new Map<string, number>();
  private readonly producedProviders = new Map<string, number>();

  /** URNs whose live count changed in the batch being applied. */
  private touched = new Set<string>();
  /** Whether every change of the batch being applied was proven sound. */
  private sound = true;
  /** Highest `sequenceID` applied. */
  maxSequence = -1;

  private constructor(baseResources: readonly unknown[]) {
    this.base = baseResources.map((r) => {
      const projected = project(r);
      if (!projected) throw new Unmodelled();
      return projected;
    });
    this.base.forEach((r) => this.count(r, 1, false));
  }

  /**
   * The index of `base` with `entries` (in `sequenceID` order, one per `sequenceID`) replayed onto it, or
   * `undefined` when the journal uses something the index does not model (every batch then takes the full check).
   * Call it only for a journal whose replay passed the full check.
   */
  static build(base: VersionedDeployment | undefined, entries: readonly JournalEntry[]): JournalIntegrityIndex | undefined {
    if (declaresIntegrityError(base?.deployment.metadata as { integrity_error?: unknown } | undefined)) return undefined;
    const resources: unknown = base?.deployment.resources ?? [];
    if (!Array.isArray(resources)) return undefined;
    try {
      const index = new JournalIntegrityIndex(resources);
      for (const entry of entries) index.apply(entry);
      return index;
    } catch (error) {
      if (error instanceof Unmodelled) return undefined;
      throw error;
    }
  }

  /**
   * Applies a batch (in `sequenceID` order, one per `sequenceID`, every one above `maxSequence`). `true`: the list
   * still passes the integrity check. `false`: not proven; the index no longer matches any journal and must be
   * dropped (the caller runs the full check and builds a new index from storage).
   */
  tryAppend(entries: readonly JournalEntry[]): boolean {
    this.touched = new Set();
    this.sound = true;
    try {
      for (const entry of entries) this.apply(entry);
    } catch (error) {
      if (error instanceof Unmodelled) return false;
      throw error;
    }
    for (const urn of this.touched) if ((this.live.get(urn) ?? 0) > 1) return false;
    return this.sound;
  }

  private apply(entry: JournalEntry): void {
    this.maxSequence = Math.max(this.maxSequence, entry.sequenceID);
    switch (entry.kind) {
      case JournalEntryKind.Begin:
      case JournalEntryKind.Failure:
      case JournalEntryKind.SecretsManager:
      case JournalEntryKind.Snippets:
      case JournalEntryKind.ExtensionParameterize:
        return; // pending operations, secrets, snippets and extensions are not part of the check
      case JournalEntryKind.Success:
        if (entry.isRefresh) throw new Unmodelled(); // the replay then rebuilds every resource's dependencies
        if (entry.state) this.produce(entry.operationID, entry.state);
        if (isIndex(entry.removeOld)) this.removeBase(entry.removeOld);
        if (isIndex(entry.removeNew)) this.removeProduced(entry.removeNew);
        if (isIndex(entry.deleteOld)) this.markBase(entry.deleteOld, this.baseMarkedDelete);
        if (isIndex(entry.deleteNew)) this.markProduced(entry.deleteNew, 'delete');
        if (isIndex(entry.pendingReplacementOld)) this.markBase(entry.pendingReplacementOld, this.baseMarkedPending);
        if (isIndex(entry.pendingReplacementNew)) this.markProduced(entry.pendingReplacementNew, 'pendingReplacement');
        return;
      case JournalEntryKind.Outputs:
        if (entry.state && isIndex(entry.removeOld)) this.replaceBase(entry.removeOld, entry.state);
        if (entry.state && isIndex(entry.removeNew)) this.replaceProduced(entry.removeNew, entry.state);
        return;
      default:
        // Refresh results, rebases (`write`) and rebuilt bases reshape the whole list.
        throw new Unmodelled();
    }
  }

  /** Adds (`by` 1) or takes away (`by` -1) what one resource contributes to the list-wide counts. */
  private count(r: IntegrityResource, by: 1 | -1, produced: boolean): void {
    if (Array.isArray(r.aliases) && r.aliases.length > 0) throw new Unmodelled(); // the replay rewrites references
    const urn = String(r.urn);
    if (r.delete !== true) {
      bump(this.live, urn, by);
      this.touched.add(urn);
    }
    for (const target of references(r) ?? []) bump(this.urnReferences, target, by);
    const provider = providerReference(r);
    if (provider !== undefined) bump(this.providerReferences, provider, by);
    if (produced) {
      bump(this.producedUrns, urn, by);
      const key = providerKey(r);
      if (key !== undefined) bump(this.producedProviders, key, by);
    }
  }

  private produce(operationID: number, state: unknown): void {
    const r = project(state);
    if (!r || this.removedOperations.has(operationID)) throw new Unmodelled();
    this.sound &&= this.soundAtEndOfProduced(r);
    this.operationIndex.set(operationID, this.produced.length);
    this.produced.push(r);
    this.count(r, 1, true);
  }

  /** The rules the check applies to one resource, for a resource placed right after the produced part. */
  private soundAtEndOfProduced(r: IntegrityResource): boolean {
    if (typeof r.urn !== 'string' || r.urn === '' || typeof r.type !== 'string' || r.type === '') return false;
    if (r.custom !== true && typeof r.id === 'string' && r.id !== '') return false;
    const provider = r.provider;
    if (provider !== undefined && provider !== null && provider !== '') {
      if (typeof provider !== 'string') return false;
      const at = provider.lastIndexOf('::');
      if (!(at > 0 && at + 2 < provider.length)) return false;
      if (!this.producedProviders.has(provider) && r.pendingReplacement !== true) return false;
    }
    const targets = references(r);
    return targets !== undefined && targets.every((urn) => this.producedUrns.has(urn));
  }

  private effectiveBase(i: number): IntegrityResource | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.base.length || this.baseRemoved.has(i)) return undefined;
    const replaced = this.baseReplaced.get(i);
    if (replaced) return replaced;
    let r = this.base[i]!;
    if (this.baseMarkedPending.has(i)) r = withFlag(r, 'pendingReplacement');
    if (this.baseMarkedDelete.has(i)) r = withFlag(r, 'delete');
    return r;
  }

  private removeBase(i: number): void {
    const r = this.effectiveBase(i);
    this.baseRemoved.add(i);
    if (!r) return;
    this.count(r, -1, false);
    const urn = String(r.urn);
    const key = providerKey(r);
    // Base resources come after every produced one, so a produced copy of the URN (and provider) still resolves.
    this.sound &&=
      (!this.urnReferences.has(urn) || this.producedUrns.has(urn)) &&
      (key === undefined || !this.providerReferences.has(key) || this.producedProviders.has(key));
  }

  private removeProduced(operationID: number): void {
    const i = this.operationIndex.get(operationID);
    // The replay resolves a removal when it generates, so one that comes before its operation succeeds is deferred.
    if (i === undefined) throw new Unmodelled();
    this.removedOperations.add(operationID);
    const r = this.produced[i];
    if (!r) return;
    this.produced[i] = undefined;
    this.count(r, -1, true);
    const key = providerKey(r);
    this.sound &&=
      !this.urnReferences.has(String(r.urn)) && (key === undefined || !this.providerReferences.has(key));
  }

  private markBase(i: number, marks: Set<number>): void {
    const before = this.effectiveBase(i);
    marks.add(i);
    this.swap(before, this.effectiveBase(i), false);
  }

  private markProduced(operationID: number, flag: 'delete' | 'pendingReplacement'): void {
    const i = this.operationIndex.get(operationID);
    const r = i === undefined ? undefined : this.produced[i];
    if (i === undefined || !r) return;
    this.produced[i] = withFlag(r, flag);
    this.swap(r, this.produced[i], true);
  }

  private replaceBase(i: number, state: unknown): void {
    const before = this.effectiveBase(i);
    const r = project(state);
    if (!r) throw new Unmodelled();
    this.baseReplaced.set(i, r);
    // An outputs entry that leaves every checked field as it was cannot break the list.
    if (before && !sameForIntegrity(before, r)) this.sound = false;
    this.swap(before, this.effectiveBase(i), false);
  }

  private replaceProduced(operationID: number, state: unknown): void {
    const i = this.operationIndex.get(operationID);
    const before = i === undefined ? undefined : this.produced[i];
    if (i === undefined || !before) return;
    const r = project(state);
    if (!r) throw new Unmodelled();
    if (!sameForIntegrity(before, r)) this.sound = false;
    this.produced[i] = r;
    this.swap(before, r, true);
  }

  /** Replaces one resource's contribution to the counts by another's (a flag set, an outputs entry). */
  private swap(before: IntegrityResource | undefined, after: IntegrityResource | undefined, produced: boolean): void {
    if (before) this.count(before, -1, produced);
    if (after) this.count(after, 1, produced);
  }
}
