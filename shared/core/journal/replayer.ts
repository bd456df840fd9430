/**
 * Rebuilds a deployment from the base deployment (the stack state when the update began) and the journal entries
 * the CLI sent, following the ordering rules of Pulumi's own `JournalReplayer`: resources that finished in this
 * update come first, in order of success, then the base resources that survive; pending operations are the
 * unfinished begins followed by the base's pending creates; dependencies are rebuilt after a refresh; the manifest
 * is fresh and the schema version is 4 exactly when a feature applies.
 *
 * Differences from the reference, all deliberate: inputs are never mutated (flags are set on copies); references to
 * operation ids that never succeeded are ignored instead of silently hitting resource 0; unfinished operations keep
 * the order their `begin` arrived in (the reference iterates a Go map, so its order is random).
 */
import { createHash } from 'node:crypto';
import { JournalEntryKind } from './types.js';
import type { DeploymentV3, OperationV2, ResourceV3, SecretsProvidersV1, VersionedDeployment } from '../checkpoints/index.js';
import type { JournalEntry } from './types.js';

/** Options for building the replayed deployment. */
export interface GenerateOptions {
  /** Epoch milliseconds written to the manifest. */
  now: () => number;
  /** Version string written to the manifest (its SHA-256 is the manifest's magic). */
  manifestVersion?: string;
}

/** Manifest version written by the server when it builds a deployment itself. */
export const SERVER_MANIFEST_VERSION = 'v3.248.0';

const ROOT_STACK_TYPE = 'pulumi:pulumi:Stack';

/** Replays journal entries onto a base deployment; feed entries in `sequenceID` order with `add`. */
export class JournalReplayer {
  private toRemove = new Set<number>();
  private toDeleteInBase = new Set<number>();
  private toReplaceInBase = new Map<number, ResourceV3>();
  private markAsDeletion = new Set<number>();
  private markAsPendingReplacement = new Set<number>();
  private operationIndex = new Map<number, number>();
  private incompleteOps = new Map<number, JournalEntry>();
  private newResources: ResourceV3[] = [];
  private extensions = new Map<string, unknown>();
  private hasRefresh = false;
  private requiresByteString = false;
  private base: DeploymentV3;

  constructor(
    base: DeploymentV3 | undefined,
    private readonly options: GenerateOptions,
    /** Features the base declared; `byteString` is carried forward (the reference cannot see it in base values). */
    private readonly baseFeatures: readonly string[] = [],
  ) {
    this.base = base ? { ...base } : emptyDeployment(options.now);
  }

  /** Number of resources this update has produced so far (before removals). */
  get newResourceCount(): number {
    return this.newResources.length;
  }

  add(entry: JournalEntry): void {
    if (entry.requiresByteString) this.requiresByteString = true;
    switch (entry.kind) {
      case JournalEntryKind.Begin:
        this.incompleteOps.set(entry.operationID, entry);
        break;
      case JournalEntryKind.Success:
        this.incompleteOps.delete(entry.operationID);
        if (entry.state) {
          this.operationIndex.set(entry.operationID, this.newResources.length);
          this.newResources.push(entry.state);
        }
        if (isIndex(entry.removeOld)) this.toDeleteInBase.add(entry.removeOld);
        if (isIndex(entry.removeNew)) this.toRemove.add(entry.removeNew);
        if (isIndex(entry.deleteOld)) this.markAsDeletion.add(entry.deleteOld);
        if (isIndex(entry.deleteNew)) this.setNewFlag(entry.deleteNew, 'delete');
        if (isIndex(entry.pendingReplacementOld)) this.markAsPendingReplacement.add(entry.pendingReplacementOld);
        if (isIndex(entry.pendingReplacementNew)) this.setNewFlag(entry.pendingReplacementNew, 'pendingReplacement');
        if (entry.isRefresh) this.hasRefresh = true;
        break;
      case JournalEntryKind.RefreshSuccess:
        this.incompleteOps.delete(entry.operationID);
        this.hasRefresh = true;
        if (isIndex(entry.removeOld)) {
          if (entry.state) this.toReplaceInBase.set(entry.removeOld, entry.state);
          else this.toDeleteInBase.add(entry.removeOld);
        }
        if (isIndex(entry.removeNew)) {
          if (entry.state) this.replaceNew(entry.removeNew, entry.state);
          else this.toRemove.add(entry.removeNew);
        }
        break;
      case JournalEntryKind.Failure:
        this.incompleteOps.delete(entry.operationID);
        break;
      case JournalEntryKind.Outputs:
        if (entry.state && isIndex(entry.removeOld)) this.toReplaceInBase.set(entry.removeOld, entry.state);
        if (entry.state && isIndex(entry.removeNew)) this.replaceNew(entry.removeNew, entry.state);
        break;
      case JournalEntryKind.Write:
        // The engine rebases before any other mutation, so earlier base indices never refer to the old base.
        this.base = entry.newSnapshot ? { ...entry.newSnapshot } : emptyDeployment(this.options.now);
        break;
      case JournalEntryKind.SecretsManager:
        if (entry.secretsProvider && !sameSecretsProvider(entry.secretsProvider, this.base.secrets_providers)) {
          this.base.secrets_providers = entry.secretsProvider;
        }
        break;
      case JournalEntryKind.Snippets:
        this.base.snippets = entry.snippets ?? undefined;
        break;
      case JournalEntryKind.RebuiltBaseState:
        // After a refresh the engine rebuilds its base; later indices refer to that rebuilt list.
        this.base = this.generate().deployment;
        this.toRemove = new Set();
        this.toDeleteInBase = new Set();
        this.toReplaceInBase = new Map();
        this.markAsDeletion = new Set();
        this.markAsPendingReplacement = new Set();
        this.operationIndex = new Map();
        this.incompleteOps = new Map();
        this.newResources = [];
        this.extensions = new Map();
        break;
      case JournalEntryKind.ExtensionParameterize:
        if (typeof entry.extensionRef === 'string' && entry.extension !== undefined) {
          this.extensions.set(entry.extensionRef, entry.extension);
        }
        break;
      default:
        break;
    }
  }

  /** The deployment as it stands after every entry added so far. */
  generate(): VersionedDeployment {
    const features = new Set<string>();
    const removeIndices = new Set<number>();
    for (const op of this.toRemove) {
      const i = this.operationIndex.get(op);
      if (i !== undefined) removeIndices.add(i);
    }

    const resources: ResourceV3[] = [];
    this.newResources.forEach((res, i) => {
      if (!removeIndices.has(i)) resources.push(res);
    });
    (this.base.resources ?? []).forEach((res, i) => {
      if (this.toDeleteInBase.has(i)) return;
      const replacement = this.toReplaceInBase.get(i);
      if (replacement) {
        // A replacement (refresh or outputs) wins over the delete mark of the old state, as in the reference.
        resources.push(replacement);
        return;
      }
      let out = res;
      if (this.markAsPendingReplacement.has(i)) out = { ...out, pendingReplacement: true };
      if (this.markAsDeletion.has(i)) out = { ...out, delete: true };
      resources.push(out);
    });

    const operations: OperationV2[] = [];
    for (const entry of this.incompleteOps.values()) if (entry.operation) operations.push(entry.operation);
    for (const op of this.base.pending_operations ?? []) if (op.type === 'creating') operations.push(op);

    const byteString = this.requiresByteString || this.baseFeatures.includes('byteString');
    for (const res of resources) applyFeatures(res, byteString, features);
    for (const op of operations) applyFeatures(op.resource, byteString, features);
    const rebuilt = this.hasRefresh ? rebuildDependencies(resources) : resources;

    const extensions: Record<string, unknown> = {};
    for (const [ref, ext] of this.extensions) extensions[ref] = ext;
    for (const [ref, ext] of Object.entries(this.base.extensions ?? {})) extensions[ref] = ext;
    const snippets = this.base.snippets;
    if (snippets && snippets.length > 0) features.add('snippets-prototype');

    const deployment: DeploymentV3 = { manifest: newManifest(this.options) };
    if (this.base.secrets_providers) deployment.secrets_providers = this.base.secrets_providers;
    const normalized = normalizeUrnReferences(rebuilt);
    if (normalized.length > 0) deployment.resources = normalized;
    if (operations.length > 0) deployment.pending_operations = operations;
    deployment.metadata = this.base.metadata ?? {};
    if (snippets && snippets.length > 0) deployment.snippets = snippets;
    const refs = Object.keys(extensions).sort();
    if (refs.length > 0) deployment.extensions = Object.fromEntries(refs.map((r) => [r, extensions[r]]));

    const sorted = [...features].sort();
    return sorted.length > 0 ? { version: 4, features: sorted, deployment } : { version: 3, deployment };
  }

  private replaceNew(operationID: number, state: ResourceV3): void {
    const i = this.operationIndex.get(operationID);
    if (i !== undefined) this.newResources[i] = state;
  }

  private setNewFlag(operationID: number, flag: 'delete' | 'pendingReplacement'): void {
    const i = this.operationIndex.get(operationID);
    if (i !== undefined) this.newResources[i] = { ...this.newResources[i]!, [flag]: true };
  }
}

/**
 * Replays a whole journal. Entries are applied in `sequenceID` order and a repeated `sequenceID` counts once (the
 * first copy wins), so retried or overlapping batches are harmless.
 */
export function replayJournal(
  base: VersionedDeployment | undefined,
  entries: Iterable<JournalEntry>,
  options: GenerateOptions,
): VersionedDeployment {
  const replayer = new JournalReplayer(base?.deployment, options, base?.features ?? []);
  for (const entry of orderJournal(entries)) replayer.add(entry);
  return replayer.generate();
}

/** Sorts entries by `sequenceID` and drops repeats of a `sequenceID` already seen. */
export function orderJournal(entries: Iterable<JournalEntry>): JournalEntry[] {
  const bySeq = new Map<number, JournalEntry>();
  for (const e of entries) if (!bySeq.has(e.sequenceID)) bySeq.set(e.sequenceID, e);
  return [...bySeq.values()].sort((a, b) => a.sequenceID - b.sequenceID);
}

/**
 * Drops references to resources that are no longer in the list (a refresh may delete a resource others depend on).
 * Dependencies, property dependencies, `deletedWith` and `replaceWith` may only point at earlier resources; a parent
 * that is gone entirely is cleared. Returns new objects for changed resources only.
 */
export function rebuildDependencies(resources: readonly ResourceV3[]): ResourceV3[] {
  const present = new Set(resources.map((r) => r.urn));
  const referenceable = new Set<string>();
  const out = resources.map((res) => {
    let next: ResourceV3 = res;
    const edit = (): ResourceV3 => (next === res ? (next = { ...res }) : next);

    if (res.dependencies && res.dependencies.length > 0) {
      const kept = res.dependencies.filter((d) => referenceable.has(d));
      if (kept.length !== res.dependencies.length) setOrDrop(edit(), 'dependencies', kept);
    }
    if (res.propertyDependencies && Object.keys(res.propertyDependencies).length > 0) {
      const kept: Record<string, string[]> = {};
      let changed = false;
      for (const [key, deps] of Object.entries(res.propertyDependencies)) {
        const k = (deps ?? []).filter((d) => referenceable.has(d));
        if (k.length > 0) kept[key] = k;
        if (k.length !== (deps ?? []).length || k.length === 0) changed = true;
      }
      if (changed) {
        if (Object.keys(kept).length > 0) edit().propertyDependencies = kept;
        else delete edit().propertyDependencies;
      }
    }
    if (res.replaceWith && res.replaceWith.length > 0) {
      const kept = res.replaceWith.filter((d) => referenceable.has(d));
      if (kept.length !== res.replaceWith.length) setOrDrop(edit(), 'replaceWith', kept);
    }
    if (res.deletedWith && !referenceable.has(res.deletedWith)) delete edit().deletedWith;
    if (res.parent && !present.has(res.parent)) delete edit().parent;
    referenceable.add(res.urn);
    return next;
  });
  return out;
}

function setOrDrop(res: ResourceV3, key: 'dependencies' | 'replaceWith', values: string[]): void {
  if (values.length > 0) res[key] = values;
  else delete res[key];
}

/**
 * Rewrites references that go through an alias to the resource's current URN and drops the `aliases` lists, as
 * Pulumi does before every save.
 */
export function normalizeUrnReferences(resources: readonly ResourceV3[]): ResourceV3[] {
  const aliased = new Map<string, string>();
  for (const res of resources) {
    for (const alias of res.aliases ?? []) aliased.set(alias, res.urn);
    const parent = res.parent ? aliased.get(res.parent) : undefined;
    if (parent && qualifiedType(parent) !== ROOT_STACK_TYPE) {
      aliased.set(res.urn, reparentUrn(res.urn, qualifiedType(parent)));
    }
  }
  if (aliased.size === 0) return [...resources];
  const fix = (urn: string | undefined): string | undefined => (urn === undefined ? urn : (aliased.get(urn) ?? urn));
  return resources.map((res) => {
    const out: ResourceV3 = { ...res, urn: fix(res.urn)! };
    if (res.parent !== undefined) out.parent = fix(res.parent);
    if (res.provider) {
      const cut = res.provider.lastIndexOf('::');
      if (cut > 0) out.provider = `${fix(res.provider.slice(0, cut))}${res.provider.slice(cut)}`;
    }
    if (res.dependencies) out.dependencies = res.dependencies.map((d) => fix(d)!);
    if (res.propertyDependencies) {
      out.propertyDependencies = Object.fromEntries(
        Object.entries(res.propertyDependencies).map(([k, deps]) => [k, deps ? deps.map((d) => fix(d)!) : deps]),
      );
    }
    if (res.deletedWith !== undefined) out.deletedWith = fix(res.deletedWith);
    if (res.viewOf !== undefined) out.viewOf = fix(res.viewOf);
    if (res.aliases && res.aliases.length > 0) delete out.aliases;
    return out;
  });
}

function urnParts(urn: string): string[] {
  return urn.replace(/^urn:pulumi:/, '').split('::');
}

function qualifiedType(urn: string): string {
  return urnParts(urn)[2] ?? '';
}

function reparentUrn(urn: string, parentType: string): string {
  const [stack = '', project = '', type = '', ...name] = urnParts(urn);
  const base = type.slice(type.lastIndexOf('$') + 1);
  return `urn:pulumi:${stack}::${project}::${parentType}$${base}::${name.join('::')}`;
}

/** Adds the deployment features a resource needs (`stack.ApplyFeatures`). */
export function applyFeatures(res: ResourceV3, byteString: boolean, features: Set<string>): void {
  if (byteString) features.add('byteString');
  if (res.refreshBeforeUpdate) features.add('refreshBeforeUpdate');
  if (res.viewOf) features.add('views');
  if (res.resourceHooks && Object.keys(res.resourceHooks).length > 0) features.add('hooks');
  if (res.taint) features.add('taint');
  if (res.replaceWith && res.replaceWith.length > 0) features.add('replaceWith');
  if (res.extensionRef) features.add('extensionParameterization');
  if (res.snippetID) features.add('snippets-prototype');
}

function newManifest(options: GenerateOptions): DeploymentV3['manifest'] {
  const version = options.manifestVersion ?? SERVER_MANIFEST_VERSION;
  return {
    time: new Date(options.now()).toISOString(),
    magic: createHash('sha256').update(version).digest('hex'),
    version,
  };
}

function emptyDeployment(now: () => number): DeploymentV3 {
  return { manifest: { time: new Date(now()).toISOString(), magic: '', version: '' }, metadata: {} };
}

function sameSecretsProvider(a: SecretsProvidersV1, b: SecretsProvidersV1 | undefined): boolean {
  return b !== undefined && a.type === b.type && JSON.stringify(a.state) === JSON.stringify(b.state);
}

function isIndex(v: number | null | undefined): v is number {
  return typeof v === 'number';
}
