import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { NewUpdate } from '../../ports/index.js';
import { uniqueId, type ContractEnv, type ContractSetup } from './setup.js';

function newUpdate(stackId: string, extra: Partial<NewUpdate> = {}): NewUpdate {
  return {
    id: uniqueId(),
    stackId,
    kind: 'update',
    dryRun: false,
    status: 'not-started',
    requestedBy: 'alice',
    createdAt: 1_700_000_000_000,
    environment: { CI: '1' },
    config: { 'p:k': 'v' },
    ...extra,
  };
}

/** UpdateStore guarantees: create-if-absent, revisions, how an update ended, idempotent history, paging, deleteAll, NotFound. */
export function updateStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`UpdateStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('creates at revision 1 with no checkpoints and reads it back', async () => {
      const stackId = uniqueId();
      const created = await env.storage.updates.create(newUpdate(stackId));
      expect(created).toMatchObject({ revision: 1, checkpointCount: 0, status: 'not-started' });
      expect(await env.storage.updates.get(stackId, created.id)).toEqual(created);
    });

    it('refuses a duplicate id and keeps the first', async () => {
      const stackId = uniqueId();
      const first = await env.storage.updates.create(newUpdate(stackId));
      await expect(
        env.storage.updates.create(newUpdate(stackId, { id: first.id, requestedBy: 'bob' })),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.updates.get(stackId, first.id)).toEqual(first);
    });

    it('throws NotFoundError for missing updates', async () => {
      const stackId = uniqueId();
      await expect(env.storage.updates.get(stackId, uniqueId())).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.updates.update(stackId, uniqueId(), 1, { status: 'failed' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('updates at the expected revision and refuses a stale one without change', async () => {
      const stackId = uniqueId();
      const u = await env.storage.updates.create(newUpdate(stackId));
      const started = await env.storage.updates.update(stackId, u.id, 1, { status: 'in-progress', startedAt: 10 });
      expect(started).toMatchObject({ revision: 2, status: 'in-progress', startedAt: 10 });
      await expect(
        env.storage.updates.update(stackId, u.id, 1, { status: 'failed' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.updates.get(stackId, u.id)).toEqual(started);
    });

    it('keeps how an update ended (who cancelled it, or that its lease expired)', async () => {
      const stackId = uniqueId();
      const u = await env.storage.updates.create(newUpdate(stackId));
      const cancelled = await env.storage.updates.create(newUpdate(stackId));

      const abandoned = await env.storage.updates.update(stackId, u.id, 1, { status: 'failed', endReason: 'lease-expired' });
      await env.storage.updates.update(stackId, cancelled.id, 1, { status: 'cancelled', cancelledBy: 'bob' });

      expect(abandoned).toMatchObject({ status: 'failed', endReason: 'lease-expired' });
      expect(await env.storage.updates.get(stackId, u.id)).toEqual(abandoned);
      expect(await env.storage.updates.get(stackId, cancelled.id)).toMatchObject({ status: 'cancelled', cancelledBy: 'bob' });
      expect((await env.storage.updates.get(stackId, cancelled.id)).endReason).toBeUndefined();
    });

    it('keeps the policy packs an update required and why the policy check failed it, in history too', async () => {
      const stackId = uniqueId();
      const requiredPolicies = [{ name: 'tags', versionTag: '1.2.0' }];
      const u = await env.storage.updates.create(newUpdate(stackId, { requiredPolicies }));

      const failed = await env.storage.updates.update(stackId, u.id, 1, { status: 'failed', version: 1, endReason: 'policy-bypassed', endMessage: 'required policy pack tags@1.2.0 did not report its analysis' });
      await env.storage.updates.recordHistory(failed);

      expect(await env.storage.updates.get(stackId, u.id)).toMatchObject({ requiredPolicies, endReason: 'policy-bypassed', endMessage: 'required policy pack tags@1.2.0 did not report its analysis' });
      expect(await env.storage.updates.getHistory(stackId, 1)).toMatchObject({ requiredPolicies, endReason: 'policy-bypassed', endMessage: failed.endMessage });
    });

    it('rejects bad ids with InvalidInputError', async () => {
      await expect(env.storage.updates.get('../etc', 'x')).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.updates.create(newUpdate(uniqueId(), { id: 'a/b' }))).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it('keeps history idempotent per version, newest first, paged', async () => {
      const stackId = uniqueId();
      for (let version = 1; version <= 5; version++) {
        const u = await env.storage.updates.create(newUpdate(stackId, { version, status: 'succeeded' }));
        await env.storage.updates.recordHistory(u);
      }
      const dup = await env.storage.updates.create(newUpdate(stackId, { version: 3, requestedBy: 'mallory' }));
      await env.storage.updates.recordHistory(dup);

      const page1 = await env.storage.updates.listHistory(stackId, 1, 2);
      const page2 = await env.storage.updates.listHistory(stackId, 2, 2);
      const page3 = await env.storage.updates.listHistory(stackId, 3, 2);
      expect(page1.updates.map((u) => u.version)).toEqual([5, 4]);
      expect(page2.updates.map((u) => u.version)).toEqual([3, 2]);
      expect(page3.updates.map((u) => u.version)).toEqual([1]);
      expect(page2.updates[0].requestedBy).toBe('alice');
      expect((await env.storage.updates.listHistory(stackId, 4, 2)).updates).toEqual([]);
    });

    it('reads one version of the history, with the checkpoint it produced', async () => {
      const stackId = uniqueId();
      const u = await env.storage.updates.create(newUpdate(stackId));
      const ended = await env.storage.updates.update(stackId, u.id, 1, {
        status: 'failed',
        version: 7,
        checkpoint: 'updates/x/checkpoints/000000000003',
        completedTokenHash: 'ab'.repeat(32),
      });
      expect(ended).toMatchObject({ checkpoint: 'updates/x/checkpoints/000000000003', completedTokenHash: 'ab'.repeat(32) });
      await env.storage.updates.recordHistory(ended);
      expect(await env.storage.updates.getHistory(stackId, 7)).toEqual(ended);
      await expect(env.storage.updates.getHistory(stackId, 6)).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.updates.getHistory(uniqueId(), 7)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('rejects bad paging with InvalidInputError', async () => {
      const stackId = uniqueId();
      await expect(env.storage.updates.listHistory(stackId, 0, 10)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.updates.listHistory(stackId, 1, 0)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.updates.listHistory(stackId, 1, 101)).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('deleteAll removes the updates and history of one stack only', async () => {
      const stackId = uniqueId();
      const other = uniqueId();
      const u = await env.storage.updates.create(newUpdate(stackId, { version: 1 }));
      await env.storage.updates.recordHistory(u);
      const keep = await env.storage.updates.create(newUpdate(other, { version: 1 }));
      await env.storage.updates.recordHistory(keep);
      await env.storage.updates.deleteAll(stackId);
      await expect(env.storage.updates.get(stackId, u.id)).rejects.toBeInstanceOf(NotFoundError);
      expect((await env.storage.updates.listHistory(stackId, 1, 10)).updates).toEqual([]);
      expect(await env.storage.updates.get(other, keep.id)).toEqual(keep);
      expect((await env.storage.updates.listHistory(other, 1, 10)).updates).toHaveLength(1);
    });
  });
}
