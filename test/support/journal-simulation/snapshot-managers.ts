/**
 * The two snapshot managers of the journal replayer's property tests: a deliberately naive full-checkpoint model that
 * holds the engine's own objects, as Pulumi's classic SnapshotManager does, and the journaling one, which emits entries
 * exactly as Pulumi's JournalSnapshotManager does.
 */
import type { OperationType, ResourceV3, SecretsProvidersV1, VersionedDeployment, DeploymentV3 } from '../../../shared/core/checkpoints/types.js';
import type { JournalEntry } from '../../../shared/core/journal/index.js';

export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const urn = (name: string) => `urn:pulumi:dev::proj::test:index:Res::${name}`;
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Only URNs at earlier positions may be referenced; a parent missing from the list is cleared. */
export function naiveRebuild(resources: ResourceV3[]): ResourceV3[] {
  const all = new Set(resources.map((r) => r.urn));
  const earlier = new Set<string>();
  return resources.map((r) => {
    const out: ResourceV3 = { ...r };
    if (r.dependencies?.length) {
      out.dependencies = r.dependencies.filter((d) => earlier.has(d));
      if (out.dependencies.length === 0) delete out.dependencies;
    }
    if (r.propertyDependencies && Object.keys(r.propertyDependencies).length) {
      const kept = Object.entries(r.propertyDependencies)
        .map(([k, deps]) => [k, (deps ?? []).filter((d) => earlier.has(d))] as const)
        .filter(([, deps]) => deps.length > 0);
      if (kept.length) out.propertyDependencies = Object.fromEntries(kept);
      else delete out.propertyDependencies;
    }
    if (r.parent && !all.has(r.parent)) delete out.parent;
    earlier.add(r.urn);
    return out;
  });
}

export interface ModelOp {
  resource: ResourceV3;
  type: OperationType;
  done: boolean;
}

/** The full-checkpoint snapshot manager, written as plainly as possible. It holds the engine's objects. */
export class FullCheckpointModel {
  news: ResourceV3[] = [];
  dones = new Set<ResourceV3>();
  ops: ModelOp[] = [];
  anyRefresh = false;
  secrets: SecretsProvidersV1 | undefined;

  constructor(
    public engine: Engine,
    public basePending: { resource: ResourceV3; type: OperationType }[],
    public baseSecrets: SecretsProvidersV1 | undefined,
    public metadata: Record<string, unknown>,
  ) {}

  snap(): VersionedDeployment {
    let resources = [
      ...this.news.filter((r) => !this.dones.has(r)),
      ...this.engine.base.filter((r) => !this.dones.has(r) && !this.engine.gone.has(r)),
    ];
    if (this.anyRefresh) resources = naiveRebuild(resources);
    const ops = [
      ...this.ops.filter((o) => !o.done).map((o) => ({ resource: o.resource, type: o.type })),
      ...this.basePending.filter((o) => o.type === 'creating'),
    ];
    const features = new Set<string>();
    for (const r of [...resources, ...ops.map((o) => o.resource)]) if (r.taint) features.add('taint');
    const secrets = this.secrets && sameProvider(this.secrets, this.baseSecrets) ? this.baseSecrets : this.secrets;
    const deployment: Omit<DeploymentV3, 'manifest'> = {
      secrets_providers: secrets,
      resources: resources.length ? resources : undefined,
      pending_operations: ops.length ? ops : undefined,
      metadata: this.metadata,
    };
    return clone({ version: features.size ? 4 : 3, features: features.size ? [...features] : undefined, deployment }) as VersionedDeployment;
  }
}

function sameProvider(a: SecretsProvidersV1, b: SecretsProvidersV1 | undefined): boolean {
  return !!b && a.type === b.type && JSON.stringify(a.state) === JSON.stringify(b.state);
}

/** The engine's in-memory view: base objects (mutated in place, as Pulumi's engine does) and resources registered. */
export interface Engine {
  base: ResourceV3[];
  gone: Set<ResourceV3>;
}

/** The journaling snapshot manager: pointer lookups into the engine's base, operation ids for new states. */
export class Journal {
  entries: JournalEntry[] = [];
  private seq = 0;
  private opCounter = 0;
  private newOps = new Map<ResourceV3, number>();
  private index = new Map<ResourceV3, number>();

  constructor(private readonly engine: Engine) {
    this.reindex();
  }

  reindex(): void {
    this.index = new Map(this.engine.base.map((r, i) => [r, i]));
  }

  nextOp(): number {
    return ++this.opCounter;
  }

  find(state: ResourceV3): { removeOld: number | null; removeNew: number | null } {
    const i = this.index.get(state);
    if (i !== undefined) return { removeOld: i, removeNew: null };
    const op = this.newOps.get(state);
    if (op === undefined) throw new Error(`test bug: ${state.urn} unknown`);
    return { removeOld: null, removeNew: op };
  }

  stored(state: ResourceV3, op: number): void {
    this.newOps.set(state, op);
  }

  emit(kind: JournalEntry['kind'], operationID: number, extra: Partial<JournalEntry> = {}): void {
    this.entries.push(clone({ version: 1, kind, sequenceID: ++this.seq, operationID, removeOld: null, removeNew: null, ...extra }));
  }
}
