/**
 * The incremental journal check must give the full check's verdict: for random journals, valid and broken, every
 * batch the index calls sound passes `findIntegrityViolation` on the full replay. Then the same through
 * `planJournalEntries` on a real local data folder: a realistic update is checked incrementally batch after batch,
 * broken batches are refused with the full check's message, and a stale or missing index falls back to storage.
 */
import { promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../adapters/local/index.js';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { findIntegrityViolation } from '../checkpoints/deployment-integrity.js';
import { InvalidInputError } from '../errors.js';
import { checkJournalBatch } from './journal-batch-check.js';
import { JournalIntegrityIndex } from './journal-integrity.js';
import { appendJournalBatch, parseJournalBatch } from './journal-store.js';
import { replayJournal } from './replayer.js';
import { JournalEntryKind } from './types.js';
import type { JournalEntry } from './types.js';
import type { ResourceV3, VersionedDeployment } from '../checkpoints/types.js';
import { planJournalEntries, recordUpdateBase } from './update-checkpoints.js';

const urn = (n: number | string) => `urn:pulumi:dev::p::t:i:R::r${n}`;
const providerUrn = (n: number) => `urn:pulumi:dev::p::pulumi:providers:aws::p${n}`;
const now = () => Date.UTC(2026, 10, 24);

/** A sound base: two providers, then resources that depend on earlier ones and use the first provider. */
function baseDeployment(count: number): VersionedDeployment {
  const resources: ResourceV3[] = [
    { urn: providerUrn(0), custom: true, id: 'id0', type: 'pulumi:providers:aws' },
    { urn: providerUrn(1), custom: true, id: 'id1', type: 'pulumi:providers:aws' },
  ];
  for (let i = 0; i < count; i++) {
    resources.push({
      urn: urn(i),
      custom: true,
      id: `x${i}`,
      type: 't:i:R',
      provider: `${providerUrn(0)}::id0`,
      ...(i > 0 ? { dependencies: [urn(i - 1)] } : {}),
      ...(i > 1 ? { parent: urn(0) } : {}),
    });
  }
  return { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources } };
}

const fullVerdict = (base: VersionedDeployment, entries: JournalEntry[]): boolean =>
  findIntegrityViolation(replayJournal(base, entries, { now }).deployment.resources ?? []) === undefined;

/** One random journal entry; names, indices and operations come from small pools so that they collide. */
const entryArbitrary = fc.record({
  kind: fc.constantFrom('produce', 'produce', 'produce', 'delete-old', 'delete-new', 'outputs', 'outputs-old', 'mark', 'begin', 'rare'),
  name: fc.integer({ min: 0, max: 7 }),
  provider: fc.constantFrom<string | undefined>(undefined, 'p0', 'p1', 'new', 'ghost'),
  dependencies: fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 2 }),
  parent: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
  old: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
  operation: fc.integer({ min: 0, max: 12 }),
  flag: fc.constantFrom('deleteOld', 'deleteNew', 'pendingReplacementOld', 'pendingReplacementNew'),
  marked: fc.boolean(),
  changeReferences: fc.boolean(),
  rare: fc.constantFrom(JournalEntryKind.RefreshSuccess, JournalEntryKind.Write, JournalEntryKind.RebuiltBaseState, 'alias', 'component-id'),
});

type EntrySpec = typeof entryArbitrary extends fc.Arbitrary<infer T> ? T : never;

function toEntry(spec: EntrySpec, sequenceID: number, base: VersionedDeployment): JournalEntry {
  const entry: JournalEntry = { version: 1, kind: JournalEntryKind.Success, sequenceID, operationID: spec.operation, removeOld: null, removeNew: null };
  const state = (): ResourceV3 => {
    const provider =
      spec.provider === 'p0' ? `${providerUrn(0)}::id0` : spec.provider === 'p1' ? `${providerUrn(1)}::id1` : spec.provider === 'ghost' ? `${providerUrn(9)}::x` : undefined;
    if (spec.provider === 'new') return { urn: providerUrn(spec.name % 2), custom: true, id: `id${spec.name}`, type: 'pulumi:providers:aws' };
    return {
      urn: urn(spec.name),
      custom: true,
      id: `x${spec.name}`,
      type: 't:i:R',
      ...(provider ? { provider } : {}),
      ...(spec.dependencies.length > 0 ? { dependencies: spec.dependencies.map(urn) } : {}),
      ...(spec.parent !== undefined ? { parent: urn(spec.parent) } : {}),
      ...(spec.marked ? { delete: true } : {}),
    };
  };
  switch (spec.kind) {
    case 'produce':
      return { ...entry, state: state(), ...(spec.old !== undefined ? { removeOld: spec.old } : {}) };
    case 'delete-old':
      return { ...entry, removeOld: spec.old ?? 0 };
    case 'delete-new':
      return { ...entry, removeNew: spec.operation };
    case 'mark':
      return { ...entry, state: state(), [spec.flag]: spec.flag.endsWith('Old') ? (spec.old ?? 0) : spec.operation };
    case 'outputs': {
      const same = spec.changeReferences ? state() : { ...state(), outputs: { changed: sequenceID } };
      return { ...entry, kind: JournalEntryKind.Outputs, removeNew: spec.operation, state: same };
    }
    case 'outputs-old': {
      const original = base.deployment.resources?.[spec.old ?? 0];
      const replacement = spec.changeReferences || !original ? state() : { ...original, outputs: { changed: sequenceID } };
      return { ...entry, kind: JournalEntryKind.Outputs, removeOld: spec.old ?? 0, state: replacement };
    }
    case 'begin':
      return { ...entry, kind: spec.marked ? JournalEntryKind.Failure : JournalEntryKind.Begin };
    default:
      if (spec.rare === 'alias') return { ...entry, state: { ...state(), aliases: [urn(spec.name + 10)] } };
      if (spec.rare === 'component-id') return { ...entry, state: { ...state(), custom: false } };
      if (spec.rare === JournalEntryKind.Write) return { ...entry, kind: JournalEntryKind.Write, newSnapshot: base.deployment };
      return { ...entry, kind: spec.rare as JournalEntryKind, removeOld: spec.old ?? 0, state: state() };
  }
}

describe('JournalIntegrityIndex', () => {
  it('calls a batch sound only when the full check passes the replayed journal (random journals)', () => {
    let incremental = 0;
    let refusedByFull = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.array(entryArbitrary, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        (baseCount, batches) => {
          const base = baseDeployment(baseCount);
          let accepted: JournalEntry[] = [];
          let index = JournalIntegrityIndex.build(base, accepted);
          let sequence = 0;
          for (const specs of batches) {
            const batch = specs.map((spec) => toEntry(spec, sequence++, base));
            const full = fullVerdict(base, [...accepted, ...batch]);
            const sound = index?.tryAppend(batch) ?? false;
            if (sound) {
              incremental += 1;
              expect(full).toBe(true);
            } else {
              index = undefined;
            }
            if (full) accepted = [...accepted, ...batch];
            else refusedByFull += 1;
            // As the service does: a batch the index could not prove, or a refused one, rebuilds it from storage.
            index ??= JournalIntegrityIndex.build(base, accepted);
          }
        },
      ),
      { numRuns: 400, seed: 20 },
    );
    expect(incremental).toBeGreaterThan(100);
    expect(refusedByFull).toBeGreaterThan(100);
  });

  it('proves every batch of an ordinary update sound: same, update, create, replace, delete, stack outputs', () => {
    const base = baseDeployment(6);
    const stack: ResourceV3 = { urn: 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev', custom: false, type: 'pulumi:pulumi:Stack' };
    const baseWithStack: VersionedDeployment = { ...base, deployment: { ...base.deployment, resources: [stack, ...base.deployment.resources!] } };
    const old = baseWithStack.deployment.resources!;
    let seq = 0;
    const success = (op: number, extra: Partial<JournalEntry>): JournalEntry => ({
      version: 1, kind: JournalEntryKind.Success, sequenceID: seq++, operationID: op, removeOld: null, removeNew: null, ...extra,
    });
    const begin = (op: number): JournalEntry => ({ version: 1, kind: JournalEntryKind.Begin, sequenceID: seq++, operationID: op });
    const batches: JournalEntry[][] = [
      [begin(0), success(0, { state: stack, removeOld: 0 })],
      [success(1, { state: old[1], removeOld: 1 }), success(2, { state: old[2], removeOld: 2 })],
      [success(3, { state: old[3], removeOld: 3 }), success(4, { state: { ...old[4]!, outputs: { v: 2 } }, removeOld: 4 })],
      [success(5, { state: old[5], removeOld: 5 })],
      // create-before-delete replacement of r3: the new copy, the old one marked for deletion, then (after r4, which
      // depends on it, moved on to the new copy) deleted.
      [success(6, { state: { ...old[6]!, id: 'new-id' }, deleteOld: 6 })],
      [success(7, { state: old[7], removeOld: 7 }), success(11, { removeOld: 6 })],
      [success(8, { state: { urn: urn('fresh'), custom: true, type: 't:i:R', id: 'f', dependencies: [urn(0)], provider: `${providerUrn(0)}::id0` } })],
      // r5 (base index 8) is deleted.
      [success(9, { removeOld: 8 })],
      [{ version: 1, kind: JournalEntryKind.Outputs, sequenceID: seq++, operationID: 0, removeNew: 0, state: { ...stack, outputs: { url: 'x' } } }],
    ];
    const index = JournalIntegrityIndex.build(baseWithStack, [])!;
    let accepted: JournalEntry[] = [];
    for (const batch of batches) {
      accepted = [...accepted, ...batch];
      expect(fullVerdict(baseWithStack, accepted)).toBe(true);
      expect(index.tryAppend(batch)).toBe(true);
    }
  });
});

describe('checkJournalBatch over a local data folder', () => {
  let dataDir: string;
  let store: CheckpointStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-journal-check-'));
    const storage = await createLocalStorage({ dataDir });
    store = storage.checkpoints;
    close = () => storage.close();
  });
  afterAll(async () => {
    await close?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const base = baseDeployment(4);
  const body = (entries: JournalEntry[]) => Buffer.from(JSON.stringify({ entries }));
  const same = (seq: number, i: number): JournalEntry => ({
    version: 1, kind: JournalEntryKind.Success, sequenceID: seq, operationID: seq, removeOld: i, removeNew: null, state: base.deployment.resources![i],
  });
  async function newUpdate() {
    const stackId = randomUUID();
    const updateId = randomUUID();
    await store.put({ stackId, name: 'checkpoints/base' }, Buffer.from(JSON.stringify(base)));
    await recordUpdateBase(store, stackId, updateId, 'checkpoints/base');
    let baseLoads = 0;
    const loadCheckpoint = async (name: string) => {
      baseLoads += 1;
      return JSON.parse(Buffer.from(await store.get({ stackId, name })).toString('utf8')) as VersionedDeployment;
    };
    const save = async (entries: JournalEntry[]) =>
      (await planJournalEntries(store, stackId, updateId, body(entries), loadCheckpoint, now)).write(async () => 1);
    return { stackId, updateId, save, baseLoads: () => baseLoads };
  }

  it('reads the base and the stored journal once, then checks each following batch from its index', async () => {
    const update = await newUpdate();
    for (let i = 0; i < base.deployment.resources!.length; i++) {
      await expect(update.save([same(i, i)])).resolves.toBe('stored');
    }
    expect(update.baseLoads()).toBe(1);
  });

  it('refuses a broken batch with the full check\'s message, stores nothing, and keeps checking correctly after it', async () => {
    const update = await newUpdate();
    await update.save([same(0, 0), same(1, 1)]);
    const dangling: JournalEntry = { ...same(2, 2), state: { ...base.deployment.resources![2]!, dependencies: [urn('ghost')] } };
    await expect(update.save([dangling])).rejects.toThrow(/refers to dependency '.*rghost', which is missing .*rule dangling-reference/);
    await expect(update.save([dangling])).rejects.toBeInstanceOf(InvalidInputError);
    const early: JournalEntry = { ...same(2, 2), state: { ...base.deployment.resources![2]!, dependencies: [urn(3)] } };
    await expect(update.save([early])).rejects.toThrow(/which comes after it .*rule reference-after-resource/);
    expect(await store.list(update.stackId, `updates/${update.updateId}/journal/`)).toHaveLength(1);
    await expect(update.save([same(2, 2), same(3, 3)])).resolves.toBe('stored');
  });

  it('notices a batch stored by another process and checks against storage again', async () => {
    const update = await newUpdate();
    await update.save([same(0, 0)]);
    // Another writer stores a second live copy of r1; only a check that reads storage sees it.
    const elsewhere = [{ ...same(1, 3), removeOld: null, state: { urn: urn(1), custom: true, id: 'x1', type: 't:i:R' } }];
    await appendJournalBatch(store, update.stackId, update.updateId, parseJournalBatch(body(elsewhere)), body(elsewhere));
    const loads = update.baseLoads();

    await expect(update.save([same(2, 1)])).rejects.toThrow(/'.*::r1' appears more than once .*rule duplicate-urn/);
    expect(update.baseLoads()).toBe(loads + 1);
  });

  it('answers a repeated batch as already applied', async () => {
    const update = await newUpdate();
    await update.save([same(0, 0)]);
    await expect(update.save([same(0, 0)])).resolves.toBe('already-applied');
    const checked = await checkJournalBatch(store, update.stackId, update.updateId, [same(1, 1)], async () => base, now);
    expect(checked.incremental).toBe(true);
  });
});
