/**
 * The update lifecycle against real storage: the local adapter on a temp data folder and the AWS adapters on the
 * stand-ins (DynamoDB Local, s3rver, the KMS server). The clock is injected, so lease expiry is exact and instant.
 */
import { promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnv, startAwsStandIns } from '../../../test/support/aws-stand-ins.js';
import { createAwsClients, createAwsStorage } from '../../adapters/aws/index.js';
import { createLocalStorage } from '../../adapters/local/index.js';
import { sha256Hex } from '../checkpoints/checkpoint-delta.js';
import { ConflictError, ForbiddenError, InvalidInputError, LeaseHeldError, NotFoundError } from '../errors.js';
import { JournalEntryKind, readUpdateBase, type JournalEntry } from '../journal/index.js';
import type { StackRef } from '../names.js';
import type { CheckpointStore, Storage } from '../../ports/index.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { StackKeys } from '../secrets/secrets-envelope.js';
import { currentDeployment, deploymentOfVersion, updateCheckpointName, writeStackCheckpoint } from '../state/stack-state.js';
import type { Principal } from '../kernel/principal.js';
import type { UntypedDeployment } from '../checkpoints/types.js';
import type { UpdateService } from './types.js';
import { settleAbandonedUpdate } from './update-records.js';
import { createUpdateService } from './update-service.js';

interface Backend {
  storage: Storage;
  advance(ms: number): void;
  cleanup(): Promise<void>;
}

const START = Date.parse('2026-03-01T12:00:00Z');

async function localBackend(): Promise<Backend> {
  const dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-updates-'));
  let time = START;
  const storage = await createLocalStorage({ dataDir, now: () => time });
  return {
    storage,
    advance: (ms) => void (time += ms),
    async cleanup() {
      await storage.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function awsBackend(): Promise<Backend> {
  const standIns = await startAwsStandIns();
  const restoreEnv = applyEnv(standIns.env);
  const clients = createAwsClients();
  let time = START;
  const { table, bucket, kmsKeyId } = standIns;
  const storage = createAwsStorage({ table, bucket, kmsKeyId, now: () => time, clients });
  return {
    storage,
    advance: (ms) => void (time += ms),
    async cleanup() {
      clients.destroy();
      await standIns.stop();
      restoreEnv();
    },
  };
}

const urn = (name: string) => `urn:pulumi:dev::web::t:i:R::${name}`;
const resource = (name: string, extra: Record<string, unknown> = {}) => ({ urn: urn(name), custom: true, type: 't:i:R', ...extra });
const deploymentWith = (...names: string[]): UntypedDeployment => ({
  version: 3,
  deployment: { manifest: { time: '2026-03-01T12:00:00Z', magic: '', version: 'v3' }, resources: names.map((n) => resource(n)) },
});
const journalEntry = (
  kind: JournalEntry['kind'],
  sequenceID: number,
  operationID: number,
  extra: Partial<JournalEntry> = {},
): JournalEntry => ({
  version: 1,
  kind,
  sequenceID,
  operationID,
  removeOld: null,
  removeNew: null,
  ...extra,
});
const journalBatch = (entries: JournalEntry[]) => Buffer.from(JSON.stringify({ entries }));
async function* chunksOf(bytes: Buffer) {
  yield bytes;
}
const resourceUrns = (deployment: UntypedDeployment) =>
  ((deployment.deployment as { resources?: { urn: string }[] }).resources ?? []).map((r) => r.urn);

describe.each([
  ['local', localBackend],
  ['aws', awsBackend],
])('UpdateService (%s storage)', (_name, makeBackend) => {
  let backend: Backend;
  let deps: ServiceDeps;
  let updates: UpdateService;
  const alice: Principal = { login: 'alice', orgs: ['alice', 'acme'], admin: false, roles: { alice: 'admin', acme: 'member' } };
  const mallory: Principal = { login: 'mallory', orgs: ['mallory'], admin: false, roles: { mallory: 'admin' } };

  beforeAll(async () => {
    backend = await makeBackend();
    const now = () => currentTime();
    deps = { storage: backend.storage, now, keys: new StackKeys(backend.storage, { now }), options: { minLeaseMs: 1000 } };
    updates = createUpdateService(deps);
  }, 60_000);
  afterAll(async () => {
    await backend?.cleanup();
  });

  let offset = 0;
  function currentTime(): number {
    return START + offset;
  }
  function advance(ms: number): void {
    offset += ms;
    backend.advance(ms);
  }

  async function newStack(): Promise<StackRef> {
    const ref = { org: 'acme', project: 'web', stack: `s${randomUUID().slice(0, 8)}` };
    await backend.storage.stacks.create({ ...ref, id: randomUUID(), tags: { team: 'blue' }, createdAt: currentTime() });
    return ref;
  }

  const stackOf = (ref: StackRef) => backend.storage.stacks.get(ref);
  const exported = async (ref: StackRef) => currentDeployment(deps, await stackOf(ref));

  async function begin(
    ref: StackRef,
    kind: 'update' | 'preview' = 'update',
    start: { leaseDurationMs?: number; journalVersion?: number } = {},
  ) {
    const environment = { 'git.head': 'abc' };
    const { updateId } = await updates.create(alice, ref, { kind, dryRun: kind === 'preview', message: 'm', environment });
    const started = await updates.start(alice, ref, updateId, start);
    return { updateId, ...started };
  }

  it('runs an update: start, checkpoints visible to export at once, complete bumps the version and records history', async () => {
    const ref = await newStack();
    expect((await exported(ref)).deployment).toEqual({ manifest: { time: new Date(currentTime()).toISOString(), magic: '', version: '' } });

    const { updateId, token, version, tokenExpiration, journalVersion } = await begin(ref);
    expect(version).toBe(1);
    expect(token).not.toBe('');
    expect(journalVersion).toBe(0);
    expect(tokenExpiration).toBe(Math.floor((currentTime() + 300_000) / 1000));
    expect((await backend.storage.leases.current((await stackOf(ref)).id))?.updateId).toBe(updateId);
    expect(await updates.status(alice, ref, updateId)).toMatchObject({ status: 'in-progress', kind: 'update', requestedBy: 'alice', startedAt: currentTime() });

    await updates.saveCheckpoint(ref, updateId, token, deploymentWith('a'));
    expect(resourceUrns(await exported(ref))).toEqual([urn('a')]);
    await updates.saveCheckpoint(ref, updateId, token, { ...deploymentWith('a', 'b'), version: 4, features: ['refreshBeforeUpdate'] });
    const midway = await exported(ref);
    expect(resourceUrns(midway)).toEqual([urn('a'), urn('b')]);
    expect(midway.features).toEqual(['refreshBeforeUpdate']);
    expect((await stackOf(ref)).version).toBe(0);

    await updates.complete(ref, updateId, token, 'succeeded');
    const stack = await stackOf(ref);
    expect(stack).toMatchObject({ version: 1, resourceCount: 2, lastUpdate: currentTime() });
    expect(stack.activeUpdate).toBeUndefined();
    expect(await backend.storage.leases.current(stack.id)).toBeUndefined();
    expect(await exported(ref)).toEqual(midway);
    expect(await deploymentOfVersion(deps, stack, 1)).toEqual(midway);
    const history = await backend.storage.updates.listHistory(stack.id, 1, 10);
    expect(history.updates).toHaveLength(1);
    expect(history.updates[0]).toMatchObject({
      id: updateId,
      kind: 'update',
      status: 'succeeded',
      version: 1,
      resourceCount: 2,
      message: 'm',
    });
    expect(await updates.status(alice, ref, updateId)).toMatchObject({ status: 'succeeded', kind: 'update' });

    // The CLI retries complete: the same token is answered OK although it is dead for everything else.
    await updates.complete(ref, updateId, token, 'succeeded');
    await expect(updates.validateToken(ref, updateId, token)).rejects.toBeInstanceOf(ForbiddenError);
    expect((await stackOf(ref)).version).toBe(1);

    const second = await begin(ref);
    expect(second.version).toBe(2);
    await updates.saveCheckpoint(ref, second.updateId, second.token, deploymentWith('c'));
    await updates.complete(ref, second.updateId, second.token, 'failed');
    const after = await stackOf(ref);
    expect(after.version).toBe(2);
    expect(resourceUrns(await deploymentOfVersion(deps, after, 1))).toEqual([urn('a'), urn('b')]);
    expect(resourceUrns(await deploymentOfVersion(deps, after, 2))).toEqual([urn('c')]);
    await expect(deploymentOfVersion(deps, after, 3)).rejects.toBeInstanceOf(NotFoundError);
    expect((await backend.storage.updates.listHistory(after.id, 1, 10)).updates.map((u) => [u.version, u.status])).toEqual([
      [2, 'failed'],
      [1, 'succeeded'],
    ]);
  });

  it('stores a gzip-compressed checkpoint upload as the client compressed it, once the decoded document checks out', async () => {
    const written: { name: string; gzipped: Uint8Array }[] = [];
    let compressions = 0;
    const checkpoints = backend.storage.checkpoints;
    const recording: CheckpointStore = {
      put: (key, body) => {
        if (!(body instanceof Uint8Array)) written.push({ name: key.name, gzipped: body.gzipped });
        return checkpoints.put(key, body);
      },
      prepare: (body) => {
        compressions += 1;
        return checkpoints.prepare(body);
      },
      get: (key) => checkpoints.get(key),
      list: (stackId, prefix) => checkpoints.list(stackId, prefix),
    };
    const recorded = createUpdateService({ ...deps, storage: { ...backend.storage, checkpoints: recording } });
    const ref = await newStack();
    const run = await begin(ref);
    const deployment = deploymentWith('ü', 'b');
    const decoded = Buffer.from(JSON.stringify({ isInvalid: false, ...deployment }));
    const gzipped = gzipSync(decoded, { level: 1 });

    await recorded.saveCheckpoint(ref, run.updateId, run.token, { chunks: () => chunksOf(decoded), gzipped });
    const broken = recorded.saveCheckpoint(ref, run.updateId, run.token, {
      chunks: () => chunksOf(Buffer.from('{"version":3')),
      gzipped: gzipSync('{"version":3'),
    });

    await expect(broken).rejects.toBeInstanceOf(InvalidInputError);
    expect(compressions).toBe(0);
    expect(written).toHaveLength(1);
    expect(Buffer.from(written[0]!.gzipped).equals(gzipped)).toBe(true);
    expect(await exported(ref)).toEqual(deployment);
  });

  it('takes the checkpoint PATCH body as bytes: stored as received, served without the request-only field', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const deployment = { version: 4, features: ['refreshBeforeUpdate'], deployment: deploymentWith('ü', 'b').deployment };
    await updates.saveCheckpoint(ref, run.updateId, run.token, Buffer.from(JSON.stringify({ isInvalid: false, ...deployment })));
    expect(await exported(ref)).toEqual(deployment);
    const bad = ['{"isInvalid":false,"version":3,"deployment":', '{"version":9,"deployment":{}}', '{"version":3}', '[]'].map(
      (text) => Buffer.from(text),
    );
    for (const body of bad) {
      await expect(updates.saveCheckpoint(ref, run.updateId, run.token, body)).rejects.toBeInstanceOf(InvalidInputError);
    }
    await expect(updates.saveCheckpoint(ref, run.updateId, 'not-the-token', bad[0]!)).rejects.toBeInstanceOf(ForbiddenError);
    expect(await exported(ref)).toEqual(deployment);
    await updates.complete(ref, run.updateId, run.token, 'succeeded');
    const stack = await stackOf(ref);
    expect(stack.resourceCount).toBe(2);
    expect(await deploymentOfVersion(deps, stack, 1)).toEqual(deployment);
  });

  it('refuses saves that break integrity with 400 naming the resource and the rule; no save number is used, nothing is stored', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const stackId = (await stackOf(ref)).id;
    const prefix = `updates/${run.updateId}/`;
    const storedBefore = await deps.storage.checkpoints.list(stackId, prefix);
    const ghost = urn('ghost');
    const broken: UntypedDeployment = {
      version: 3,
      deployment: { manifest: {}, resources: [resource('a'), resource('a'), resource('child', { parent: ghost })] },
    };
    const dangling: UntypedDeployment = { version: 3, deployment: { manifest: {}, resources: [resource('child', { parent: ghost })] } };
    const verbatim = Buffer.from(JSON.stringify({ version: 3, untypedDeployment: broken, sequenceNumber: 1 }));
    const journal = journalBatch([journalEntry(JournalEntryKind.Success, 1, 1, { state: resource('child', { dependencies: [ghost] }) })]);

    await expect(updates.saveCheckpoint(ref, run.updateId, run.token, broken)).rejects.toThrow(
      /resource '.*::a' appears more than once not marked for deletion.*rule duplicate-urn/,
    );
    await expect(updates.saveCheckpoint(ref, run.updateId, run.token, Buffer.from(JSON.stringify(dangling)))).rejects.toThrow(
      /resource '.*::child' refers to parent '.*::ghost', which is missing .*rule dangling-reference/,
    );
    await expect(updates.saveVerbatimCheckpoint(ref, run.updateId, run.token, verbatim)).rejects.toThrow(/rule duplicate-urn/);
    await expect(updates.saveJournalEntries(ref, run.updateId, run.token, journal)).rejects.toThrow(
      /'.*::child' refers to dependency '.*::ghost', which is missing .*rule dangling-reference/,
    );
    await expect(updates.saveCheckpoint(ref, run.updateId, 'not-the-token', broken)).rejects.toBeInstanceOf(ForbiddenError);

    expect(await deps.storage.checkpoints.list(stackId, prefix)).toEqual(storedBefore);
    await updates.saveCheckpoint(ref, run.updateId, run.token, deploymentWith('a'));
    expect(await deps.storage.checkpoints.list(stackId, prefix)).toEqual([...storedBefore, updateCheckpointName(run.updateId, 1, 1)].sort());
  });

  it('stores a broken checkpoint the CLI declared with metadata.integrity_error, as Pulumi does, so no state is lost', async () => {
    const ref = await newStack();
    const run = await begin(ref);
    const declared: UntypedDeployment = {
      version: 3,
      deployment: {
        manifest: {},
        metadata: { integrity_error: { version: '3', command: 'pulumi up', error: 'child refers to missing parent' } },
        resources: [resource('child', { parent: urn('ghost') })],
      },
    };

    await updates.saveCheckpoint(ref, run.updateId, run.token, declared);

    expect(await exported(ref)).toEqual(declared);
  });

  it('runs dry runs without the lease, a version or history, and lets a real update start meanwhile', async () => {
    const ref = await newStack();
    const preview = await begin(ref, 'preview');
    const { updateId: dryUpdateId } = await updates.create(alice, ref, { kind: 'update', dryRun: true });
    const dry = await updates.start(alice, ref, dryUpdateId, { tags: { team: 'red' } });
    expect([preview.version, dry.version]).toEqual([0, 0]);
    expect(preview.token).not.toBe('');
    expect((await stackOf(ref)).tags).toEqual({ team: 'red' });
    expect(await backend.storage.leases.current((await stackOf(ref)).id)).toBeUndefined();

    const real = await begin(ref);
    expect(real.version).toBe(1);
    await expect(updates.saveCheckpoint(ref, preview.updateId, preview.token, deploymentWith('x'))).rejects.toBeInstanceOf(ForbiddenError);
    await updates.recordEvents(ref, preview.updateId, preview.token, [{ sequence: 0, timestamp: 1, stdoutEvent: { message: 'hi' } }]);
    const renewed = await updates.renew(ref, preview.updateId, preview.token, 60_000);
    expect(renewed.token).toBe(preview.token);
    await updates.complete(ref, preview.updateId, preview.token, 'succeeded');
    await updates.complete(ref, preview.updateId, preview.token, 'succeeded');
    await updates.complete(ref, dryUpdateId, dry.token, 'failed');
    expect(await updates.status(alice, ref, preview.updateId)).toMatchObject({ status: 'succeeded', kind: 'preview' });
    await expect(updates.validateToken(ref, preview.updateId, preview.token)).rejects.toBeInstanceOf(ForbiddenError);

    const stack = await stackOf(ref);
    expect(stack.version).toBe(0);
    expect(stack.activeUpdate).toBe(real.updateId);
    expect((await backend.storage.updates.listHistory(stack.id, 1, 10)).updates).toEqual([]);
    await updates.complete(ref, real.updateId, real.token, 'succeeded');
    expect((await backend.storage.updates.listHistory(stack.id, 1, 10)).updates.map((u) => u.id)).toEqual([real.updateId]);
  });

  it('refuses a second start with 409 naming the holder, and hides stacks of other organizations', async () => {
    const ref = await newStack();
    const first = await begin(ref);
    const { updateId } = await updates.create(alice, ref, { kind: 'refresh', dryRun: false });
    const refusal = await updates.start(alice, ref, updateId, {}).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(LeaseHeldError);
    expect((refusal as LeaseHeldError).message).toMatch(/^Conflict: Another update is currently in progress\./);
    expect((refusal as LeaseHeldError).lease).toMatchObject({ updateId: first.updateId, holder: 'alice' });
    expect(await updates.status(alice, ref, updateId)).toMatchObject({ status: 'not-started', kind: 'refresh' });
    await expect(updates.create(mallory, ref, { kind: 'update', dryRun: false })).rejects.toBeInstanceOf(NotFoundError);
    await expect(updates.start(mallory, ref, first.updateId, {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(updates.cancel(mallory, ref, first.updateId)).rejects.toBeInstanceOf(NotFoundError);
    const unknownId = `${first.updateId.slice(0, -1)}${first.updateId.endsWith('0') ? '1' : '0'}`;
    await expect(updates.status(alice, ref, unknownId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(updates.create(alice, ref, { kind: 'rename' as 'update', dryRun: false })).rejects.toBeInstanceOf(InvalidInputError);
    await updates.complete(ref, first.updateId, first.token, 'succeeded');
    await expect(updates.start(alice, ref, first.updateId, {})).rejects.toBeInstanceOf(ConflictError);
  });

  it('renews with the same token past the original expiry, within the configured bounds', async () => {
    const ref = await newStack();
    const { updateId, token, tokenExpiration } = await begin(ref, 'update', { leaseDurationMs: 1 });
    expect(tokenExpiration).toBe(Math.floor((currentTime() + 1000) / 1000));
    advance(800);
    const renewed = await updates.renew(ref, updateId, token, 1000);
    expect(renewed.token).toBe(token);
    advance(800);
    await updates.saveCheckpoint(ref, updateId, token, deploymentWith('a'));
    const longest = await updates.renew(ref, updateId, token, 10 * 3_600_000);
    expect(longest.tokenExpiration).toBe(Math.floor((currentTime() + 300_000) / 1000));
    advance(300_001);
    await expect(updates.renew(ref, updateId, token, 1000)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('answers 403 to tokens of another update, another stack name, and after complete, cancel or expiry', async () => {
    const ref = await newStack();
    const other = await newStack();
    const a = await begin(ref, 'update', { leaseDurationMs: 1000 });
    const dry = await begin(ref, 'preview');
    const elsewhere = await begin(other);
    const oneEntry = journalBatch([journalEntry(JournalEntryKind.Success, 1, 1, { state: resource('x') })]);
    const firstVerbatim = Buffer.from('{"version":3,"untypedDeployment":{"version":3,"deployment":{}},"sequenceNumber":1}');
    const tokenRoutes = (target: StackRef, updateId: string, token: string) => [
      updates.validateToken(target, updateId, token),
      updates.renew(target, updateId, token),
      updates.saveCheckpoint(target, updateId, token, deploymentWith('x')),
      updates.saveJournalEntries(target, updateId, token, oneEntry),
      updates.saveVerbatimCheckpoint(target, updateId, token, firstVerbatim),
      updates.recordEvents(target, updateId, token, [{ sequence: 0, timestamp: 1 }]),
      updates.complete(target, updateId, token, 'succeeded'),
    ];
    const expectForbidden = async (calls: Promise<unknown>[]) => {
      for (const outcome of await Promise.allSettled(calls)) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ForbiddenError);
      }
    };
    await expectForbidden(tokenRoutes(ref, a.updateId, dry.token));
    await expectForbidden(tokenRoutes(ref, dry.updateId, a.token));
    await expectForbidden(tokenRoutes(other, a.updateId, a.token));
    await expectForbidden(tokenRoutes(ref, elsewhere.updateId, elsewhere.token));
    await expectForbidden(tokenRoutes(ref, 'not-an-update', a.token));
    await expectForbidden(tokenRoutes(ref, a.updateId, ''));

    await updates.complete(other, elsewhere.updateId, elsewhere.token, 'succeeded');
    await expectForbidden(tokenRoutes(other, elsewhere.updateId, elsewhere.token).slice(0, -1));

    advance(1001);
    await expectForbidden(tokenRoutes(ref, a.updateId, a.token));

    const b = await begin(ref);
    await updates.cancel(alice, ref, b.updateId);
    await expectForbidden(tokenRoutes(ref, b.updateId, b.token));
    await updates.cancel(alice, ref, dry.updateId);
    await expectForbidden(tokenRoutes(ref, dry.updateId, dry.token));
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
