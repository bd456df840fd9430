/**
 * A small engine simulation for the journal replayer's property tests: generated steps (refresh, same, update, replace,
 * delete, create, outputs; each succeeding, failing or left unfinished) feed every mutation to both snapshot managers,
 * and a generated crash point cuts the journal.
 */
import fc from 'fast-check';
import type { DeploymentV3, OperationType, ResourceV3, SecretsProvidersV1, VersionedDeployment } from '../../../shared/core/checkpoints/types.js';
import { JournalEntryKind, type JournalEntry } from '../../../shared/core/journal/index.js';
import { prng } from '../prng.js';
import { clone, FullCheckpointModel, Journal, naiveRebuild, urn, type Engine, type ModelOp } from './snapshot-managers.js';

export interface Scenario {
  n: number;
  seed: number;
  shape: 'update' | 'refresh';
  withRefresh: boolean;
  withWrite: boolean;
  changeSecrets: boolean;
  cut: number;
}

export interface Outcome {
  base: VersionedDeployment;
  entries: JournalEntry[];
  expected: VersionedDeployment;
}

/** Runs one scenario, returning the journal up to the crash point and the model's deployment at that point. */
export function run(s: Scenario): Outcome {
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

export function strip(d: VersionedDeployment): unknown {
  const { manifest: _manifest, ...rest } = d.deployment;
  return clone({ version: d.version, features: d.features, deployment: rest });
}

export const scenario = (maxResources: number): fc.Arbitrary<Scenario> =>
  fc.record({
    n: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: maxResources })),
    seed: fc.integer(),
    shape: fc.constantFrom('update' as const, 'update' as const, 'refresh' as const),
    withRefresh: fc.boolean(),
    withWrite: fc.boolean(),
    changeSecrets: fc.boolean(),
    cut: fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 400 })),
  });

