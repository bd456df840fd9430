/**
 * Property tests for the journal replayer. A small engine simulation runs generated steps (refresh, same, update,
 * replace, delete, create, outputs; each succeeding, failing or left unfinished) and feeds every mutation to two
 * snapshot managers at once: the journaling one, which emits entries exactly as Pulumi's JournalSnapshotManager
 * does, and a deliberately naive full-checkpoint model that holds the engine's own objects, as Pulumi's classic
 * SnapshotManager does. After a generated crash point, replaying the entries must give the model's deployment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JournalEntryKind, replayJournal } from './index.js';
import type { DeploymentV3, OperationType, ResourceV3, SecretsProvidersV1, VersionedDeployment } from '../checkpoints/types.js';
import type { JournalEntry } from './index.js';
import { prng } from '../../../test/support/prng.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const urn = (name: string) => `urn:pulumi:dev::proj::test:index:Res::${name}`;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Only URNs at earlier positions may be referenced; a parent missing from the list is cleared. */
function naiveRebuild(resources: ResourceV3[]): ResourceV3[] {
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

interface ModelOp {
  resource: ResourceV3;
  type: OperationType;
  done: boolean;
}

/** The full-checkpoint snapshot manager, written as plainly as possible. It holds the engine's objects. */
class FullCheckpointModel {
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
interface Engine {
  base: ResourceV3[];
  gone: Set<ResourceV3>;
}

/** The journaling snapshot manager: pointer lookups into the engine's base, operation ids for new states. */
class Journal {
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

interface Scenario {
  n: number;
  seed: number;
  shape: 'update' | 'refresh';
  withRefresh: boolean;
  withWrite: boolean;
  changeSecrets: boolean;
  cut: number;
}

interface Outcome {
  base: VersionedDeployment;
  entries: JournalEntry[];
  expected: VersionedDeployment;
}

/** Runs one scenario, returning the journal up to the crash point and the model's deployment at that point. */
function run(s: Scenario): Outcome {
  const pick = prng(s.seed);
  const chance = (pct: number) => pick(100) < pct;

  const baseResources: ResourceV3[] = [];
  for (let i = 0; i < s.n; i++) {
    const deps = i > 0 && chance(60) ? [...new Set([urn(`b${pick(i)}`), urn(`b${pick(i)}`)])] : undefined;
    const r: ResourceV3 = {
      urn: urn(`b${i}`),
      custom: true,
      type: 'test:index:Res',
      id: `id-${i}`,
      inputs: { name: `b${i}`, label: i % 7 === 0 ? 'naïve résumé 日本 😀' : `plain ${i}` },
      outputs: { v: pick(1000) },
    };
    if (deps) {
      r.dependencies = deps;
      r.propertyDependencies = { name: deps.slice(0, 1) };
    }
    if (i > 0 && chance(15)) r.parent = urn(`b${pick(i)}`);
    if (chance(2)) r.taint = true;
    if (chance(2)) r.delete = true;
    baseResources.push(r);
  }
  const basePending = Array.from({ length: pick(3) }, (_, k) => ({
    resource: { urn: urn(`pending${k}`), custom: true, type: 'test:index:Res' },
    type: (k % 2 === 0 ? 'creating' : 'updating') as OperationType,
  }));
  const baseSecrets: SecretsProvidersV1 = { type: 'service', state: { url: 'https://sy.example', stack: 'dev' } };
  const baseDeployment: DeploymentV3 = {
    manifest: { time: '2026-01-01T00:00:00.000Z', magic: 'm', version: 'v3.0.0' },
    secrets_providers: baseSecrets,
    resources: baseResources,
    pending_operations: basePending,
    metadata: {},
  };
  const base: VersionedDeployment = clone({ version: 3, deployment: baseDeployment });

  const engine: Engine = { base: clone(baseResources), gone: new Set() };
  const model = new FullCheckpointModel(engine, clone(basePending), baseSecrets, {});
  const journal = new Journal(engine);
  let snapshotAtCut: VersionedDeployment | undefined;
  const step = (entry: () => void, mutate: () => void) => {
    if (journal.entries.length >= s.cut) return;
    entry();
    mutate();
    if (journal.entries.length === s.cut) snapshotAtCut = model.snap();
  };

  const runSecrets: SecretsProvidersV1 = s.changeSecrets ? { type: 'passphrase', state: { salt: 'x' } } : clone(baseSecrets);
  step(() => journal.emit(JournalEntryKind.SecretsManager, 0, { secretsProvider: runSecrets }), () => (model.secrets = runSecrets));

  if (s.withWrite) {
    // The engine rebases before any step: some base states change, pending operations stay.
    const written = engine.base.map((r) => (chance(20) ? { ...r, outputs: { v: pick(1000), rebased: true } } : r));
    const snapshot: DeploymentV3 = { ...clone(baseDeployment), secrets_providers: runSecrets, resources: clone(written) };
    step(
      () => journal.emit(JournalEntryKind.Write, 0, { newSnapshot: snapshot }),
      () => {
        engine.base = written;
        journal.reindex();
        model.baseSecrets = runSecrets;
      },
    );
  }

  const refreshOne = (slot: number, persisted: boolean) => {
    const old = engine.base[slot]!;
    const op = journal.nextOp();
    step(() => journal.emit(JournalEntryKind.Begin, op), () => {});
    const roll = pick(100);
    if (roll < 10) return; // unfinished: a refresh records no pending operation
    if (roll < 20) {
      step(() => journal.emit(JournalEntryKind.Failure, op), () => {});
      return;
    }
    const deleted = roll < 40;
    const fresh: ResourceV3 | undefined = deleted ? undefined : { ...old, outputs: { v: pick(1000), refreshed: true } };
    const where = journal.find(old);
    if (persisted) {
      step(
        () => journal.emit(JournalEntryKind.Success, op, { ...where, isRefresh: true, state: fresh ?? null }),
        () => {
          model.anyRefresh = true;
          model.dones.add(old);
          if (fresh) {
            model.news.push(fresh);
            journal.stored(fresh, op);
          }
        },
      );
    } else {
      step(
        () => journal.emit(JournalEntryKind.RefreshSuccess, op, { ...where, isRefresh: true, state: fresh ?? null }),
        () => {
          model.anyRefresh = true;
          if (fresh) {
            engine.base[slot] = fresh;
            journal.reindex();
          } else engine.gone.add(old);
        },
      );
    }
  };

  if (s.shape === 'refresh') {
    for (let i = 0; i < engine.base.length; i++) if (chance(40)) refreshOne(i, chance(50));
  } else {
    if (s.withRefresh) {
      for (let i = 0; i < engine.base.length; i++) if (chance(30)) refreshOne(i, false);
      step(
        () => journal.emit(JournalEntryKind.RebuiltBaseState, 0),
        () => {
          // The engine rebuilds its base from the refreshed states; later steps look up indices in that list.
          engine.base = naiveRebuild(engine.base.filter((r) => !engine.gone.has(r)));
          engine.gone = new Set();
          journal.reindex();
        },
      );
    }
    updatePhase(pick, chance, engine, model, journal, step);
  }

  return {
    base,
    entries: journal.entries,
    expected: snapshotAtCut ?? model.snap(),
  };
}

function updatePhase(
  pick: (n: number) => number,
  chance: (pct: number) => boolean,
  engine: Engine,
  model: FullCheckpointModel,
  journal: Journal,
  step: (entry: () => void, mutate: () => void) => void,
): void {
  const registered = new Set<string>();
  const deletes: ResourceV3[] = [];
  let created = 0;

  const begin = (state: ResourceV3, type: OperationType): { op: number; modelOp: ModelOp } => {
    const op = journal.nextOp();
    const modelOp: ModelOp = { resource: clone(state), type, done: false };
    step(() => journal.emit(JournalEntryKind.Begin, op, { operation: { resource: state, type } }), () => model.ops.push(modelOp));
    return { op, modelOp };
  };
  const finish = (modelOp: ModelOp) => (modelOp.done = true);
  const filterDeps = (r: ResourceV3): ResourceV3 => {
    const out: ResourceV3 = { ...r };
    if (r.dependencies) out.dependencies = r.dependencies.filter((d) => registered.has(d));
    if (r.propertyDependencies) {
      out.propertyDependencies = Object.fromEntries(
        Object.entries(r.propertyDependencies).map(([k, v]) => [k, (v ?? []).filter((d) => registered.has(d))]),
      );
    }
    return out;
  };
  const maybeOutputs = (state: ResourceV3) => {
    if (!chance(25)) return;
    const op = journal.nextOp();
    const outputs = { ...(state.outputs as object), registered: pick(1000) };
    step(
      () => journal.emit(JournalEntryKind.Outputs, op, { ...journal.find(state), state: { ...state, outputs } }),
      () => (state.outputs = outputs),
    );
  };
  const succeedNew = (op: number, modelOp: ModelOp, state: ResourceV3, extra: Partial<JournalEntry>, after: () => void) => {
    step(
      () => journal.emit(JournalEntryKind.Success, op, { ...extra, state }),
      () => {
        finish(modelOp);
        model.news.push(state);
        journal.stored(state, op);
        registered.add(state.urn);
        after();
      },
    );
  };
  const createNew = () => {
    const name = `n${created++}`;
    const deps = [...registered].filter(() => chance(5)).slice(0, 3);
    const state: ResourceV3 = { urn: urn(name), custom: true, type: 'test:index:Res', id: `nid-${name}`, outputs: { v: pick(1000) } };
    if (deps.length) state.dependencies = deps;
    const { op, modelOp } = begin(state, 'creating');
    const roll = pick(100);
    if (roll < 8) return;
    if (roll < 15) {
      step(() => journal.emit(JournalEntryKind.Failure, op, { state }), () => finish(modelOp));
      return;
    }
    succeedNew(op, modelOp, state, {}, () => {});
    maybeOutputs(state);
  };

  for (const b of [...engine.base]) {
    if (chance(20)) createNew();
    if (b.delete) {
      if (chance(50)) deletes.push(b);
      continue;
    }
    const roll = pick(100);
    if (roll < 30) {
      const op = journal.nextOp();
      const state = filterDeps(b);
      step(() => journal.emit(JournalEntryKind.Begin, op), () => {});
      if (chance(3)) {
        step(() => journal.emit(JournalEntryKind.Failure, op, { state }), () => {});
        continue;
      }
      step(
        () => journal.emit(JournalEntryKind.Success, op, { ...journal.find(b), state }),
        () => {
          model.dones.add(b);
          model.news.push(state);
          journal.stored(state, op);
          registered.add(state.urn);
        },
      );
      maybeOutputs(state);
    } else if (roll < 50) {
      const state = { ...filterDeps(b), outputs: { v: pick(1000), updated: true } };
      const { op, modelOp } = begin(state, 'updating');
      const r2 = pick(100);
      if (r2 < 8) continue;
      if (r2 < 16) {
        step(() => journal.emit(JournalEntryKind.Failure, op, { state }), () => finish(modelOp));
        continue;
      }
      succeedNew(op, modelOp, state, journal.find(b), () => model.dones.add(b));
      maybeOutputs(state);
    } else if (roll < 60) {
      // Create-before-delete: the replacement goes first, the old state is marked for deletion and deleted at the end.
      const state = { ...filterDeps(b), id: `${b.id}-r`, outputs: { v: pick(1000) } };
      const { op, modelOp } = begin(state, 'creating');
      if (chance(8)) continue;
      const where = journal.find(b);
      succeedNew(op, modelOp, state, { deleteOld: where.removeOld, deleteNew: where.removeNew }, () => (b.delete = true));
      deletes.push(b);
    } else if (roll < 68) {
      // Delete-before-replace: the old state is deleted but kept as pending replacement until its replacement exists.
      const del = begin(clone(b), 'deleting');
      if (chance(10)) continue;
      const where = journal.find(b);
      step(
        () => journal.emit(JournalEntryKind.Success, del.op, { pendingReplacementOld: where.removeOld, pendingReplacementNew: where.removeNew }),
        () => {
          finish(del.modelOp);
          b.pendingReplacement = true;
        },
      );
      const { pendingReplacement: _flag, ...kept } = filterDeps(b);
      const state: ResourceV3 = { ...kept, id: `${b.id}-r` };
      const { op, modelOp } = begin(state, 'creating');
      const r2 = pick(100);
      if (r2 < 10) continue;
      if (r2 < 20) {
        step(() => journal.emit(JournalEntryKind.Failure, op, { state }), () => finish(modelOp));
        continue;
      }
      succeedNew(op, modelOp, state, journal.find(b), () => model.dones.add(b));
    } else if (roll < 80) {
      deletes.push(b);
    }
    // Otherwise the resource is left untouched (not in this run's plan).
  }
  while (chance(30)) createNew();

  for (const b of deletes.reverse()) {
    const { op, modelOp } = begin(clone(b), 'deleting');
    const roll = pick(100);
    if (roll < 8) continue;
    if (roll < 15) {
      step(() => journal.emit(JournalEntryKind.Failure, op), () => finish(modelOp));
      continue;
    }
    step(
      () => journal.emit(JournalEntryKind.Success, op, journal.find(b)),
      () => {
        finish(modelOp);
        model.dones.add(b);
      },
    );
  }
}

function strip(d: VersionedDeployment): unknown {
  const { manifest: _manifest, ...rest } = d.deployment;
  return clone({ version: d.version, features: d.features, deployment: rest });
}

const scenario = (maxResources: number): fc.Arbitrary<Scenario> =>
  fc.record({
    n: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: maxResources })),
    seed: fc.integer(),
    shape: fc.constantFrom('update' as const, 'update' as const, 'refresh' as const),
    withRefresh: fc.boolean(),
    withWrite: fc.boolean(),
    changeSecrets: fc.boolean(),
    cut: fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 400 })),
  });

describe('journal replayer', () => {
  it('replays to the deployment full checkpoints produce, at the end and after any crash point', () => {
    fc.assert(
      fc.property(scenario(300), (s) => {
        const { base, entries, expected } = run(s);
        const replayed = replayJournal(base, entries, { now: () => NOW });
        expect(strip(replayed)).toEqual(strip(expected));
        expect(replayed.deployment.manifest.time).toBe(new Date(NOW).toISOString());
      }),
      { numRuns: 300 },
    );
  });

  it('holds for bases of up to 2,000 resources', () => {
    fc.assert(
      fc.property(scenario(2000).map((s) => ({ ...s, n: 1000 + (s.n % 1001) })), (s) => {
        const { base, entries, expected } = run(s);
        expect(strip(replayJournal(base, entries, { now: () => NOW }))).toEqual(strip(expected));
      }),
      { numRuns: 25 },
    );
  });

  it('is unaffected by batch order and repeated batches', () => {
    fc.assert(
      fc.property(scenario(100), fc.integer({ min: 1, max: 20 }), fc.integer(), (s, batchSize, shuffleSeed) => {
        const { base, entries } = run({ ...s, cut: Number.MAX_SAFE_INTEGER });
        const batches: JournalEntry[][] = [];
        for (let i = 0; i < entries.length; i += batchSize) batches.push(entries.slice(i, i + batchSize));
        const pick = prng(shuffleSeed);
        const delivered = [...batches, ...batches.filter(() => pick(3) === 0)];
        for (let i = delivered.length - 1; i > 0; i--) {
          const j = pick(i + 1);
          [delivered[i], delivered[j]] = [delivered[j]!, delivered[i]!];
        }
        expect(replayJournal(base, delivered.flat(), { now: () => NOW })).toEqual(
          replayJournal(base, entries, { now: () => NOW }),
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('journal replayer rules', () => {
  const res = (name: string, extra: Partial<ResourceV3> = {}): ResourceV3 => ({ urn: urn(name), custom: true, type: 'test:index:Res', ...extra });
  const entry = (kind: JournalEntry['kind'], sequenceID: number, operationID: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
    version: 1, kind, sequenceID, operationID, removeOld: null, removeNew: null, ...extra,
  });
  const base = (resources: ResourceV3[], extra: Partial<DeploymentV3> = {}): VersionedDeployment => ({
    version: 3,
    deployment: { manifest: { time: '', magic: '', version: '' }, resources, metadata: {}, ...extra },
  });

  it('puts new resources first in order of success, then surviving base resources', () => {
    const out = replayJournal(base([res('a'), res('b'), res('c')]), [
      entry(JournalEntryKind.Begin, 1, 1),
      entry(JournalEntryKind.Begin, 2, 2),
      entry(JournalEntryKind.Success, 3, 2, { state: res('y'), removeOld: 2 }),
      entry(JournalEntryKind.Success, 4, 1, { state: res('x') }),
    ], { now: () => NOW });
    expect(out.deployment.resources!.map((r) => r.urn)).toEqual(['y', 'x', 'a', 'b'].map(urn));
  });

  it('keeps the base pending creates and the unfinished operations, dropping finished ones', () => {
    const pendingCreate = { resource: res('p1'), type: 'creating' as const };
    const pendingUpdate = { resource: res('p2'), type: 'updating' as const };
    const out = replayJournal(base([], { pending_operations: [pendingCreate, pendingUpdate] }), [
      entry(JournalEntryKind.Begin, 1, 1, { operation: { resource: res('u1'), type: 'updating' } }),
      entry(JournalEntryKind.Begin, 2, 2, { operation: { resource: res('u2'), type: 'creating' } }),
      entry(JournalEntryKind.Failure, 3, 1),
    ], { now: () => NOW });
    expect(out.deployment.pending_operations).toEqual([{ resource: res('u2'), type: 'creating' }, pendingCreate]);
  });

  it('uses schema 4 with sorted features when a resource needs one, and carries extensions and snippets', () => {
    const out = replayJournal(base([res('a', { taint: true })], { snippets: [{ uuid: 'u' }] }), [
      entry(JournalEntryKind.Success, 1, 1, { state: res('b', { refreshBeforeUpdate: true }) }),
      entry(JournalEntryKind.ExtensionParameterize, 2, 2, { extensionRef: 'ext1', extension: { name: 'e' } }),
    ], { now: () => NOW });
    expect(out.version).toBe(4);
    expect(out.features).toEqual(['refreshBeforeUpdate', 'snippets-prototype', 'taint']);
    expect(out.deployment.extensions).toEqual({ ext1: { name: 'e' } });
  });

  it('rewrites references through aliases to current URNs, re-parents children and drops the alias lists', () => {
    const out = replayJournal(base([res('child', { dependencies: [urn('old')], parent: urn('old') })]), [
      entry(JournalEntryKind.Success, 1, 1, { state: res('new', { aliases: [urn('old')] }) }),
    ], { now: () => NOW });
    const child = 'urn:pulumi:dev::proj::test:index:Res$test:index:Res::child';
    expect(out.deployment.resources).toEqual([res('new'), { ...res('child', { dependencies: [urn('new')], parent: urn('new') }), urn: child }]);
  });

  it('does not modify the base deployment or the entries it is given', () => {
    const b = base([res('a'), res('b')]);
    const entries = [
      entry(JournalEntryKind.Success, 1, 1, { state: res('x') }),
      entry(JournalEntryKind.Success, 2, 2, { deleteOld: 0, deleteNew: 1, state: res('y') }),
      entry(JournalEntryKind.RefreshSuccess, 3, 3, { removeOld: 1, state: null }),
    ];
    const before = clone({ b, entries });
    replayJournal(b, entries, { now: () => NOW });
    expect({ b, entries }).toEqual(before);
  });

  it('after a refresh deletes a resource, prunes references to it but keeps valid ones', () => {
    const a = res('a');
    const b = res('b');
    const child = res('child', { parent: urn('b') });
    const dependent = res('dependent', {
      replaceWith: [urn('a'), urn('b')],
      dependencies: [urn('b'), urn('a')],
      propertyDependencies: { x: [urn('b')], y: [urn('a')] },
      deletedWith: urn('b'),
    });
    const out = replayJournal(base([a, b, child, res('unrelated'), dependent]), [
      entry(JournalEntryKind.RefreshSuccess, 1, 1, { removeOld: 1 }),
    ], { now: () => NOW });
    expect(out.deployment.resources).toEqual([
      a,
      res('child'),
      res('unrelated'),
      res('dependent', { replaceWith: [urn('a')], dependencies: [urn('a')], propertyDependencies: { y: [urn('a')] } }),
    ]);
    expect(out.features).toEqual(['replaceWith']);
  });

  it('keeps the base extensions when no entry touches them', () => {
    const out = replayJournal(base([], { extensions: { ref: { name: 'base-ext' } } }), [], { now: () => NOW });
    expect(out.deployment.extensions).toEqual({ ref: { name: 'base-ext' } });
  });
});
