/**
 * Update persistence over a real object store (the S3 adapter against the s3rver stand-in): journal batches are
 * durable and idempotent, verbatim/delta saves follow the sequence rules, and the current deployment is rebuilt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rverCheckpointStore, type S3rverCheckpointStore } from '../../../test/support/s3rver-checkpoint-store.js';
import { sha256Hex } from '../checkpoints/checkpoint-delta.js';
import { InvalidInputError, TooLargeError } from '../errors.js';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { currentUpdateDeployment, JournalEntryKind, loadJournal, materializeUpdate, negotiateJournalVersion, recordUpdateBase, planDeltaCheckpoint, planJournalEntries, planVerbatimCheckpoint } from './index.js';
import type { JournalEntry } from './index.js';
import type { VersionedDeployment } from '../checkpoints/types.js';

/** The saves as the update service runs them, with a token write that always succeeds. */
const commit = async () => 1;
const noBase = async (): Promise<VersionedDeployment> => {
  throw new Error('no base recorded');
};
const saveJournalEntries = async (
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  body: Buffer,
  max?: number,
  loadBase: (name: string) => Promise<VersionedDeployment> = noBase,
) => (await planJournalEntries(store, stackId, updateId, body, loadBase, () => 0, max)).write(commit);
const saveVerbatimCheckpoint = async (store: CheckpointStore, stackId: string, updateId: string, body: Buffer) =>
  (await planVerbatimCheckpoint(store, stackId, updateId, body)).write(commit);
const saveDeltaCheckpoint = async (store: CheckpointStore, stackId: string, updateId: string, body: Buffer) =>
  (await planDeltaCheckpoint(store, stackId, updateId, body)).write(commit);

let s3rver: S3rverCheckpointStore;
let store: CheckpointStore;
const NOW = Date.UTC(2026, 10, 22);

beforeAll(async () => {
  s3rver = await startS3rverCheckpointStore('journal');
  store = s3rver.store;
}, 60_000);

afterAll(async () => {
  await s3rver?.stop();
});

const urn = (n: string) => `urn:pulumi:dev::p::t:i:R::${n}`;
const res = (n: string, extra: Record<string, unknown> = {}) => ({ urn: urn(n), custom: true, type: 't:i:R', ...extra });
const entry = (kind: JournalEntry['kind'], sequenceID: number, operationID: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  version: 1, kind, sequenceID, operationID, removeOld: null, removeNew: null, ...extra,
});
const batch = (entries: JournalEntry[]) => Buffer.from(JSON.stringify({ entries }));

describe('journal batches', () => {
  it('stores batches durably, accepts repeats, and replays onto the recorded base', async () => {
    const stackId = randomUUID();
    const updateId = randomUUID();
    const baseDeployment: VersionedDeployment = {
      version: 3,
      deployment: { manifest: { time: '', magic: '', version: '' }, resources: [res('a', { label: 'ü' }), res('b')], metadata: {} },
    };
    await recordUpdateBase(store, stackId, updateId, 'checkpoints/1');
    const first = [
      entry(JournalEntryKind.Begin, 1, 1, { operation: { resource: res('a', { v: 2 }), type: 'updating' } }),
      entry(JournalEntryKind.Success, 2, 1, { state: res('a', { v: 2 }), removeOld: 0 }),
    ];
    const second = [entry(JournalEntryKind.Begin, 3, 2, { operation: { resource: res('b'), type: 'deleting' } })];
    const loadBase = async () => baseDeployment;
    await saveJournalEntries(store, stackId, updateId, batch(first), undefined, loadBase);
    await saveJournalEntries(store, stackId, updateId, batch(second), undefined, loadBase);
    await saveJournalEntries(store, stackId, updateId, batch(first), undefined, loadBase);
    expect((await loadJournal(store, stackId, updateId)).map((e) => e.sequenceID)).toEqual([1, 2, 3]);

    await store.put({ stackId, name: 'checkpoints/1' }, Buffer.from(JSON.stringify(baseDeployment)));
    const current = await currentUpdateDeployment(store, stackId, updateId, () => NOW);
    const doc = JSON.parse(current!.text.toString('utf8')) as VersionedDeployment;
    expect(current!.source).toBe('journal');
    expect(doc.deployment.resources).toEqual([res('a', { v: 2 }), res('b')]);
    expect(doc.deployment.pending_operations).toEqual([{ resource: res('b'), type: 'deleting' }]);
  });

  it('answers 413 for an oversize batch and 400 for a malformed one', async () => {
    const big = batch([entry(JournalEntryKind.Success, 1, 1, { state: res('x', { blob: 'x'.repeat(2000) }) })]);
    await expect(saveJournalEntries(store, randomUUID(), randomUUID(), big, 1000)).rejects.toBeInstanceOf(TooLargeError);
    await expect(saveJournalEntries(store, randomUUID(), randomUUID(), Buffer.from('{"entries":[{"kind":1}]}'))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('refuses a batch whose replayed state breaks integrity, naming the resource and the rule, storing nothing', async () => {
    const stackId = randomUUID();
    const updateId = randomUUID();
    await recordUpdateBase(store, stackId, updateId, undefined);
    const orphan = { ...res('orphan'), parent: 'urn:pulumi:dev::proj::x:y:Z::ghost' };

    const attempt = planJournalEntries(store, stackId, updateId, batch([entry(JournalEntryKind.Success, 1, 1, { state: orphan })]), noBase, () => 0);

    await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
    await expect(attempt).rejects.toThrow(/'urn:pulumi:.*orphan' refers to parent '.*ghost', which is missing .*rule dangling-reference/);
    expect(await loadJournal(store, stackId, updateId)).toEqual([]);
    const duplicate = batch([
      entry(JournalEntryKind.Success, 1, 1, { state: res('twice') }),
      entry(JournalEntryKind.Success, 2, 2, { state: res('twice') }),
    ]);
    await expect(planJournalEntries(store, stackId, updateId, duplicate, noBase, () => 0)).rejects.toThrow(/rule duplicate-urn/);
  });
});

describe('verbatim and delta saves', () => {
  it('applies deltas to the stored bytes, refuses a mismatch, accepts the verbatim fallback and ignores repeats', async () => {
    const stackId = randomUUID();
    const updateId = randomUUID();
    const doc1 = Buffer.from('{"version":3,"deployment":{"manifest":{"time":"t"},"metadata":{},"resources":[{"urn":"日本","custom":true,"type":"x"}]}}');
    const verbatim = (seq: number, doc: Buffer) =>
      Buffer.concat([Buffer.from('{"version":3,"untypedDeployment":'), doc, Buffer.from(`,"sequenceNumber":${seq}}`)]);
    expect(await saveVerbatimCheckpoint(store, stackId, updateId, verbatim(1, doc1))).toBe('stored');

    const at = doc1.indexOf('"x"');
    const doc2 = Buffer.concat([doc1.subarray(0, at), Buffer.from('"ÿ😀"'), doc1.subarray(at + 3)]);
    const edit = { Span: { uri: '', start: { line: 1, column: 0, offset: at }, end: { line: 1, column: 0, offset: at + 3 } }, NewText: '"ÿ😀"' };
    const delta = (seq: number, hash: string) => Buffer.from(JSON.stringify({ version: 3, checkpointHash: hash, sequenceNumber: seq, deploymentDelta: [edit] }));

    await expect(saveDeltaCheckpoint(store, stackId, updateId, delta(2, sha256Hex(doc1)))).rejects.toBeInstanceOf(InvalidInputError);
    expect(await saveDeltaCheckpoint(store, stackId, updateId, delta(2, sha256Hex(doc2)))).toBe('stored');
    expect(await saveDeltaCheckpoint(store, stackId, updateId, delta(2, sha256Hex(doc2)))).toBe('already-applied');
    expect(await saveVerbatimCheckpoint(store, stackId, updateId, verbatim(1, doc1))).toBe('already-applied');

    const current = await currentUpdateDeployment(store, stackId, updateId, () => NOW);
    expect(current!.source).toBe('verbatim');
    expect(current!.text.equals(doc2)).toBe(true);
  });

  it('has nothing to report for an update that saved nothing', async () => {
    expect(await currentUpdateDeployment(store, randomUUID(), randomUUID(), () => NOW)).toBeUndefined();
  });
});

describe('materialising at complete', () => {
  it('writes the replayed deployment once as a stack checkpoint, and a retried complete changes nothing', async () => {
    const stackId = randomUUID();
    const updateId = randomUUID();
    await recordUpdateBase(store, stackId, updateId, undefined);
    await saveJournalEntries(store, stackId, updateId, batch([entry(JournalEntryKind.Success, 1, 1, { state: res('n') })]));
    const first = await materializeUpdate(store, stackId, updateId, 'checkpoints/2', () => NOW);
    const again = await materializeUpdate(store, stackId, updateId, 'checkpoints/2', () => NOW + 1000);
    const stored = JSON.parse(Buffer.from(await store.get({ stackId, name: 'checkpoints/2' })).toString('utf8')) as VersionedDeployment;
    expect(first!.resourceCount).toBe(1);
    expect(again!.resourceCount).toBe(1);
    expect(stored.deployment.resources).toEqual([res('n')]);
    expect(stored.deployment.manifest.time).toBe(new Date(NOW).toISOString());
  });

  it('answers journal version 1 only when asked', () => {
    expect([negotiateJournalVersion(1), negotiateJournalVersion(undefined), negotiateJournalVersion(0)]).toEqual([1, 0, 0]);
  });
});

describe('reads at complete', () => {
  /** The store, recording when each call starts and ends. */
  function recording(inner: CheckpointStore): { store: CheckpointStore; log: string[] } {
    const log: string[] = [];
    const traced = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
      log.push(`start ${what}`);
      try {
        return await call();
      } finally {
        log.push(`end ${what}`);
      }
    };
    return {
      log,
      store: {
        ...inner,
        prepare: (body) => inner.prepare(body),
        put: (key, body) => inner.put(key, body),
        get: (key) => traced(`get ${key.name.replace(/^updates\/[^/]+\//, '')}`, () => inner.get(key)),
        list: (stackId, prefix) => traced(`list ${prefix.replace(/^updates\/[^/]+\//, '')}`, () => inner.list(stackId, prefix)),
      },
    };
  }

  it('lists each prefix once, asks independent reads together and reads every object once', async () => {
    const stackId = randomUUID();
    const updateId = randomUUID();
    const base: VersionedDeployment = { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources: [res('a')] } };
    await store.put({ stackId, name: 'checkpoints/1' }, Buffer.from(JSON.stringify(base)));
    await recordUpdateBase(store, stackId, updateId, 'checkpoints/1');
    const loadBase = async () => base;
    await saveJournalEntries(store, stackId, updateId, batch([entry(JournalEntryKind.Success, 1, 1, { state: res('b') })]), undefined, loadBase);
    await saveJournalEntries(store, stackId, updateId, batch([entry(JournalEntryKind.Success, 2, 2, { state: res('c') })]), undefined, loadBase);
    const { store: traced, log } = recording(store);

    const current = await currentUpdateDeployment(traced, stackId, updateId, () => NOW);

    expect(current!.resourceCount).toBe(3);
    const reads = log.filter((line) => line.startsWith('start')).map((line) => line.slice('start '.length).replace(/journal\/.+/, 'journal/<batch>'));
    expect(reads.sort()).toEqual(['get base', 'get checkpoints/1', 'get journal/<batch>', 'get journal/<batch>', 'list journal/', 'list verbatim/'].sort());
    // The listings and the base record go out together; then the base and the batches go out together.
    const firstEnd = log.findIndex((line) => line.startsWith('end'));
    expect(log.slice(0, firstEnd).sort()).toEqual(['start get base', 'start list journal/', 'start list verbatim/']);
    const baseStart = log.indexOf('start get checkpoints/1');
    const batchEnds = log.map((line, i) => (line.startsWith('end get journal/') ? i : -1)).filter((i) => i >= 0);
    expect(batchEnds.every((i) => i > baseStart)).toBe(true);
  });
});
