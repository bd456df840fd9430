/**
 * The update lifecycle against real storage (local and AWS stand-ins, injected clock): start, checkpoint saves and
 * their integrity checks, dry runs, the lease (second starts, renewal) and which tokens are refused.
 */
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, InvalidInputError, LeaseHeldError, NotFoundError } from '../errors.js';
import { JournalEntryKind } from '../journal/index.js';
import type { StackRef } from '../names.js';
import type { CheckpointStore } from '../../ports/index.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { deploymentOfVersion, updateCheckpointName } from '../state/stack-state.js';
import type { UntypedDeployment } from '../checkpoints/types.js';
import type { UpdateService } from './types.js';
import { createUpdateService } from './update-service.js';
import { chunksOf, deploymentWith, journalBatch, journalEntry, resource, resourceUrns, UPDATE_BACKENDS, urn, useUpdateWorld, type Backend } from '../../../test/support/update-service-world.js';

describe.each(UPDATE_BACKENDS)('UpdateService (%s storage)', (_name, makeBackend) => {
  const world = useUpdateWorld(makeBackend);
  const { alice, mallory, advance, currentTime, newStack, stackOf, exported, begin } = world;
  let backend: Backend;
  let deps: ServiceDeps;
  let updates: UpdateService;
  beforeAll(() => {
    ({ backend, deps, updates } = world);
  });

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
});
