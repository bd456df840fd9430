/**
 * How updates end against real storage (local and AWS stand-ins, injected clock): crashed and abandoned updates
 * folded, journals materialised, events and resource counts for history, cancel, and concurrent starts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../checkpoints/checkpoint-delta.js';
import { ForbiddenError, InvalidInputError, LeaseHeldError } from '../errors.js';
import { JournalEntryKind, readUpdateBase } from '../journal/index.js';
import type { CheckpointStore } from '../../ports/index.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { deploymentOfVersion, updateCheckpointName, writeStackCheckpoint } from '../state/stack-state.js';
import type { UpdateService } from './types.js';
import { settleAbandonedUpdate } from './update-records.js';
import { createUpdateService } from './update-service.js';
import { deploymentWith, journalBatch, journalEntry, resource, resourceUrns, UPDATE_BACKENDS, urn, useUpdateWorld, type Backend } from '../../../test/support/update-service-world.js';

describe.each(UPDATE_BACKENDS)('UpdateService endings (%s storage)', (_name, makeBackend) => {
  const world = useUpdateWorld(makeBackend);
  const { alice, advance, newStack, stackOf, exported, begin } = world;
  let backend: Backend;
  let deps: ServiceDeps;
  let updates: UpdateService;
  beforeAll(() => {
    ({ backend, deps, updates } = world);
  });

  it('folds a crashed update at the next start: its last checkpoint becomes the base, it is recorded as failed', async () => {
    const ref = await newStack();
    const crashed = await begin(ref, 'update', { leaseDurationMs: 1000 });
    await updates.saveCheckpoint(ref, crashed.updateId, crashed.token, deploymentWith('a'));
    await updates.saveCheckpoint(ref, crashed.updateId, crashed.token, deploymentWith('a', 'b'));
    advance(1001);
    expect(resourceUrns(await exported(ref))).toEqual([urn('a'), urn('b')]);

    const next = await begin(ref, 'update', { journalVersion: 1 });
    expect(next.version).toBe(2);
    expect(next.journalVersion).toBe(1);
    const stack = await stackOf(ref);
    expect(stack).toMatchObject({ version: 1, activeUpdate: next.updateId, resourceCount: 2 });
    expect(await readUpdateBase(backend.storage.checkpoints, stack.id, next.updateId)).toBe(stack.currentCheckpoint);
    expect(resourceUrns(await exported(ref))).toEqual([urn('a'), urn('b')]);
    const [entry] = (await backend.storage.updates.listHistory(stack.id, 1, 10)).updates;
    expect(entry).toMatchObject({ id: crashed.updateId, status: 'failed', version: 1, checkpoint: stack.currentCheckpoint });
    await expect(updates.complete(ref, crashed.updateId, crashed.token, 'succeeded')).rejects.toBeInstanceOf(ForbiddenError);
    await updates.cancel(alice, ref, crashed.updateId);
    expect(await updates.status(alice, ref, crashed.updateId)).toMatchObject({ status: 'failed', kind: 'update' });

    // The journal indices of the new update refer to the folded state: removeOld 0 replaces resource 'a'.
    await updates.saveJournalEntries(
      ref,
      next.updateId,
      next.token,
      journalBatch([
        journalEntry(JournalEntryKind.Begin, 1, 1, { operation: { resource: resource('a', { v: 2 }), type: 'updating' } }),
        journalEntry(JournalEntryKind.Success, 2, 1, { state: resource('a', { v: 2 }), removeOld: 0 }),
      ]),
    );
    await updates.complete(ref, next.updateId, next.token, 'succeeded');
    const done = await exported(ref);
    expect((done.deployment as { resources: unknown[] }).resources).toEqual([resource('a', { v: 2 }), resource('b')]);
    expect(await stackOf(ref)).toMatchObject({ version: 2, currentCheckpoint: `updates/${next.updateId}/result`, resourceCount: 2 });
  });

  it('settles an abandoned journaled update for stack operations, and leaves a live one alone', async () => {
    const ref = await newStack();
    const live = await begin(ref, 'update', { journalVersion: 1, leaseDurationMs: 1000 });
    const created = journalBatch([journalEntry(JournalEntryKind.Success, 1, 1, { state: resource('j') })]);
    await updates.saveJournalEntries(ref, live.updateId, live.token, created);
    const running = await stackOf(ref);
    expect(await settleAbandonedUpdate(deps, running)).toEqual(running);
    advance(1001);
    const settled = await settleAbandonedUpdate(deps, await stackOf(ref));
    expect(settled).toMatchObject({ version: 1, resourceCount: 1, currentCheckpoint: `updates/${live.updateId}/result` });
    expect(settled.activeUpdate).toBeUndefined();
    expect(resourceUrns(await exported(ref))).toEqual([urn('j')]);
    expect(await updates.status(alice, ref, live.updateId)).toMatchObject({ status: 'failed', kind: 'update' });
    expect(await settleAbandonedUpdate(deps, settled)).toEqual(settled);
    expect((await begin(ref)).version).toBe(2);
  });

  it('materialises journal entries and verbatim/delta saves at complete; export shows them while they run', async () => {
    const ref = await newStack();
    const base = await writeStackCheckpoint(deps, await stackOf(ref), deploymentWith('base'));
    const seeded = await stackOf(ref);
    await backend.storage.stacks.update(seeded.id, seeded.revision, { currentCheckpoint: base, version: 0 });

    const journaled = await begin(ref, 'update', { journalVersion: 1 });
    const batch = journalBatch([
      journalEntry(JournalEntryKind.Begin, 1, 1, { operation: { resource: resource('n'), type: 'creating' } }),
      journalEntry(JournalEntryKind.Success, 2, 1, { state: resource('n') }),
    ]);
    await updates.saveJournalEntries(ref, journaled.updateId, journaled.token, batch);
    await updates.saveJournalEntries(ref, journaled.updateId, journaled.token, batch);
    expect(resourceUrns(await exported(ref))).toEqual([urn('n'), urn('base')]);
    await updates.complete(ref, journaled.updateId, journaled.token, 'succeeded');
    expect(await stackOf(ref)).toMatchObject({ version: 1, resourceCount: 2, currentCheckpoint: `updates/${journaled.updateId}/result` });

    const verbatim = await begin(ref);
    const doc = Buffer.from(JSON.stringify(deploymentWith('v1', 'v2')));
    const body = Buffer.concat([Buffer.from('{"version":3,"untypedDeployment":'), doc, Buffer.from(',"sequenceNumber":1}')]);
    await updates.saveVerbatimCheckpoint(ref, verbatim.updateId, verbatim.token, body);
    await updates.saveVerbatimCheckpoint(ref, verbatim.updateId, verbatim.token, body);
    expect(resourceUrns(await exported(ref))).toEqual([urn('v1'), urn('v2')]);
    const at = doc.indexOf(urn('v2'));
    const doc2 = Buffer.concat([doc.subarray(0, at), Buffer.from(urn('v3')), doc.subarray(at + urn('v2').length)]);
    const span = { uri: '', start: { line: 1, column: 0, offset: at }, end: { line: 1, column: 0, offset: at + urn('v2').length } };
    const edit = { Span: span, NewText: urn('v3') };
    const delta = (hash: string) =>
      Buffer.from(JSON.stringify({ version: 3, checkpointHash: hash, sequenceNumber: 2, deploymentDelta: [edit] }));
    await expect(updates.saveDeltaCheckpoint(ref, verbatim.updateId, verbatim.token, delta(sha256Hex(doc)))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await updates.saveDeltaCheckpoint(ref, verbatim.updateId, verbatim.token, delta(sha256Hex(doc2)));
    await updates.saveDeltaCheckpoint(ref, verbatim.updateId, verbatim.token, delta(sha256Hex(doc2)));
    expect(resourceUrns(await exported(ref))).toEqual([urn('v1'), urn('v3')]);
    await updates.complete(ref, verbatim.updateId, verbatim.token, 'succeeded');
    const stack = await stackOf(ref);
    expect(stack).toMatchObject({ version: 2, resourceCount: 2 });
    expect(resourceUrns(await deploymentOfVersion(deps, stack, 1))).toEqual([urn('n'), urn('base')]);
    expect(resourceUrns(await deploymentOfVersion(deps, stack, 2))).toEqual([urn('v1'), urn('v3')]);
  });

  it('stores event batches once per sequence range and takes resource changes for history from the summary', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const batch = [
      { sequence: 0, timestamp: 1, preludeEvent: { config: {} } },
      { sequence: 1, timestamp: 2, summaryEvent: { resourceChanges: { create: 2, same: 1 }, durationSeconds: 1, result: 'succeeded' } },
    ];
    await updates.recordEvents(ref, run.updateId, run.token, batch);
    await updates.recordEvents(ref, run.updateId, run.token, batch);
    await updates.recordEvents(ref, run.updateId, run.token, []);
    await expect(updates.recordEvents(ref, run.updateId, run.token, [{ timestamp: 3 }])).rejects.toBeInstanceOf(InvalidInputError);
    const stack = await stackOf(ref);
    expect(await backend.storage.checkpoints.list(stack.id, `updates/${run.updateId}/events/`)).toHaveLength(1);
    await updates.saveCheckpoint(ref, run.updateId, run.token, deploymentWith('a', 'b', 'c'));
    await updates.complete(ref, run.updateId, run.token, 'succeeded');
    const [entry] = (await backend.storage.updates.listHistory(stack.id, 1, 1)).updates;
    expect(entry).toMatchObject({ resourceChanges: { create: 2, same: 1 }, resourceCount: 3 });
  });

  it('complete records the resource count taken when the last checkpoint was checked, without reading the state back', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    await updates.saveCheckpoint(ref, run.updateId, run.token, deploymentWith('a'));
    await updates.saveCheckpoint(ref, run.updateId, run.token, Buffer.from(JSON.stringify(deploymentWith('a', 'b', 'c'))));
    const stackId = (await stackOf(ref)).id;
    const reads: string[] = [];
    const checkpoints: CheckpointStore = {
      put: (key, body) => backend.storage.checkpoints.put(key, body),
      prepare: (body) => backend.storage.checkpoints.prepare(body),
      list: (id, prefix) => backend.storage.checkpoints.list(id, prefix),
      get: (key) => {
        reads.push(key.name);
        return backend.storage.checkpoints.get(key);
      },
    };
    const watched = createUpdateService({ ...deps, storage: { ...backend.storage, checkpoints } });

    await watched.complete(ref, run.updateId, run.token, 'succeeded');

    expect(reads.filter((name) => name.startsWith(`updates/${run.updateId}/checkpoints/`))).toEqual([]);
    expect(await backend.storage.checkpoints.list(stackId, `updates/${run.updateId}/checkpoints/`)).toEqual([
      updateCheckpointName(run.updateId, 1, 1),
      updateCheckpointName(run.updateId, 2, 3),
    ]);
    expect(await stackOf(ref)).toMatchObject({ version: 1, resourceCount: 3, currentCheckpoint: updateCheckpointName(run.updateId, 2, 3) });
    expect(resourceUrns(await exported(ref))).toEqual([urn('a'), urn('b'), urn('c')]);
  });

  it('complete still counts the resources of a checkpoint stored under a name without its count', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const stackId = (await stackOf(ref)).id;
    const legacyName = `updates/${run.updateId}/checkpoints/000000000001`;
    await backend.storage.checkpoints.put({ stackId, name: legacyName }, Buffer.from(JSON.stringify(deploymentWith('a', 'b'))));

    await updates.complete(ref, run.updateId, run.token, 'succeeded');

    expect(await stackOf(ref)).toMatchObject({ version: 1, resourceCount: 2, currentCheckpoint: legacyName });
  });

  it('names a verbatim save after its number and resource count; a repeat of that number stores nothing new', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const stackId = (await stackOf(ref)).id;
    const verbatim = (seq: number, ...names: string[]) =>
      Buffer.from(JSON.stringify({ version: 3, untypedDeployment: deploymentWith(...names), sequenceNumber: seq }));

    await updates.saveVerbatimCheckpoint(ref, run.updateId, run.token, verbatim(1, 'a', 'b'));
    await updates.saveVerbatimCheckpoint(ref, run.updateId, run.token, verbatim(1, 'a', 'b', 'c'));
    await updates.saveVerbatimCheckpoint(ref, run.updateId, run.token, verbatim(2, 'a', 'b', 'c'));
    await updates.complete(ref, run.updateId, run.token, 'succeeded');

    expect(await backend.storage.checkpoints.list(stackId, `updates/${run.updateId}/verbatim/`)).toEqual([
      `updates/${run.updateId}/verbatim/000000000001-2`,
      `updates/${run.updateId}/verbatim/000000000002-3`,
    ]);
    expect(await stackOf(ref)).toMatchObject({ version: 1, resourceCount: 3 });
  });

  it('cancel revokes the token, folds what was saved and frees the stack; repeating it changes nothing', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    await updates.saveCheckpoint(ref, run.updateId, run.token, deploymentWith('a'));
    await updates.cancel(alice, ref, run.updateId);
    await expect(updates.saveCheckpoint(ref, run.updateId, run.token, deploymentWith('b'))).rejects.toBeInstanceOf(ForbiddenError);
    await updates.cancel(alice, ref, run.updateId);
    const stack = await stackOf(ref);
    expect(stack).toMatchObject({ version: 1, resourceCount: 1 });
    expect(stack.activeUpdate).toBeUndefined();
    expect(resourceUrns(await exported(ref))).toEqual([urn('a')]);
    const history = (await backend.storage.updates.listHistory(stack.id, 1, 10)).updates;
    expect(history.map((u) => [u.version, u.status, u.cancelledBy])).toEqual([[1, 'cancelled', 'alice']]);
    expect(await updates.status(alice, ref, run.updateId)).toMatchObject({ status: 'cancelled', kind: 'update' });

    const { updateId: unstarted } = await updates.create(alice, ref, { kind: 'destroy', dryRun: false });
    await updates.cancel(alice, ref, unstarted);
    expect(await updates.status(alice, ref, unstarted)).toMatchObject({ status: 'cancelled', kind: 'destroy' });
    const next = await begin(ref);
    expect(next.version).toBe(2);
  });

  it('a run that ends without a summary (cancelled, killed) has its history count the step events it recorded', async () => {
    const step = (sequence: number, op: string) => ({ sequence, timestamp: sequence, resOutputsEvent: { metadata: { op, urn: urn(`r${sequence}`), type: 'x:y:Z' } } });
    const ref = await newStack();
    const cancelled = await begin(ref);
    await updates.recordEvents(ref, cancelled.updateId, cancelled.token, [{ sequence: 0, timestamp: 0, preludeEvent: { config: {} } }, step(1, 'update'), step(2, 'update')]);
    const defaultProvider = { sequence: 8, timestamp: 8, resOutputsEvent: { metadata: { op: 'create', urn: 'urn:pulumi:dev::p::pulumi:providers:aws::default_6_1_0', type: 'pulumi:providers:aws' } } };
    await updates.recordEvents(ref, cancelled.updateId, cancelled.token, [step(3, 'create'), step(4, 'create-replacement'), step(5, 'replace'), step(6, 'delete-replaced'), step(7, 'same'), defaultProvider]);
    await updates.cancel(alice, ref, cancelled.updateId);
    const killed = await begin(ref, 'update', { leaseDurationMs: 1000 });
    await updates.recordEvents(ref, killed.updateId, killed.token, [step(0, 'delete')]);
    advance(1001);
    await begin(ref);

    const history = (await backend.storage.updates.listHistory((await stackOf(ref)).id, 1, 10)).updates;

    expect(history.map((u) => [u.version, u.status, u.resourceChanges])).toEqual([
      [2, 'failed', { delete: 1 }],
      [1, 'cancelled', { update: 2, create: 1, replace: 1 }],
    ]);
  });

  it('gives the lease to exactly one of many concurrent starts', async () => {
    for (let round = 0; round < 3; round++) {
      const ref = await newStack();
      const ids = await Promise.all(Array.from({ length: 8 }, () => updates.create(alice, ref, { kind: 'update', dryRun: false })));
      const outcomes = await Promise.allSettled(ids.map(({ updateId }) => updates.start(alice, ref, updateId, {})));
      const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [ids[i]!.updateId] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(LeaseHeldError);
          expect((outcome.reason as LeaseHeldError).lease.updateId).toBe(winners[0]);
        }
      }
      expect((await stackOf(ref)).activeUpdate).toBe(winners[0]);
    }
  });

  it('refuses the losers of concurrent starts without an audit entry: only the grant is logged', async () => {
    const ref = await newStack();
    const name = `${ref.org}/${ref.project}/${ref.stack}`;
    const ids = await Promise.all(Array.from({ length: 20 }, () => updates.create(alice, ref, { kind: 'update', dryRun: false })));

    const outcomes = await Promise.allSettled(ids.map(({ updateId }) => updates.start(alice, ref, updateId, {})));

    const winner = ids[outcomes.findIndex((o) => o.status === 'fulfilled')]!.updateId;
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as LeaseHeldError).lease?.updateId)).toEqual(Array(19).fill(winner));
    const logged = (await backend.storage.audit.list({ org: 'acme', limit: 1000 })).entries.filter((e) => e.target === name);
    expect(logged.map((e) => [e.event, e.description, e.outcome])).toEqual([['update.started', expect.stringContaining(winner), undefined]]);
  });
});
