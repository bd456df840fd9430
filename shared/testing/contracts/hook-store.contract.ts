import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { newEventId } from '../../core/hooks/outbox-events.js';
import type { DeliveryRecord, HookRecord, NewDelivery, OutboxEvent } from '../../ports/index.js';
import { uniqueId, uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

const T0 = 1_700_000_000_000;

function hook(org: string, name: string, stackId?: string): HookRecord {
  return {
    org,
    ...(stackId !== undefined ? { stackId } : {}),
    name,
    events: ['update_succeeded'],
    destination: { kind: 'https', url: 'https://ci.example.com/hook', sealedSecret: 'v1.sealed-key.sealed-body' },
    active: true,
    gate: false,
    failOpen: false,
    createdBy: 'alice',
    createdAt: T0,
  };
}

function event(org: string, stackId: string, kind: OutboxEvent['kind'] = 'stack_created'): OutboxEvent {
  return { id: newEventId(T0), kind, org, stackId, occurredAt: T0, payload: { stackName: 'dev', event: kind } };
}

function delivery(org: string, name: string, id: string, createdAt = T0): NewDelivery {
  return { org, hook: name, id, eventId: id, kind: 'update_succeeded', payload: { a: 1 }, createdAt };
}

/** HookStore guarantees: hooks per scope, the outbox written atomically with state changes, exclusive claims. */
export function hookStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`HookStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    /** Claims everything claimable now and returns only the given ids (other suites may share the store). */
    async function claimMine(ids: string[], now = T0 + 1): Promise<OutboxEvent[]> {
      const claimed = await env.storage.hooks.claimEvents(now, now + 60_000, 100);
      return claimed.filter((e) => ids.includes(e.id));
    }

    it('creates hooks once per (scope, name) and lists them by org and by stack', async () => {
      const org = uniqueOrg();
      const stackA = uniqueId();
      const stackB = uniqueId();
      await env.storage.hooks.create(hook(org, 'ci'));
      await env.storage.hooks.create(hook(org, 'ci', stackA));
      await env.storage.hooks.create(hook(org, 'chat', stackB));
      await expect(env.storage.hooks.create({ ...hook(org, 'ci'), createdBy: 'bob' })).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.hooks.get({ org }, 'ci')).createdBy).toBe('alice');
      expect((await env.storage.hooks.get({ org, stackId: stackA }, 'ci')).stackId).toBe(stackA);
      expect(await env.storage.hooks.listByOrg(org)).toHaveLength(3);
      const forA = await env.storage.hooks.listForStack(org, stackA);
      expect(forA.map((h) => [h.name, h.stackId ?? null])).toEqual([
        ['ci', null],
        ['ci', stackA],
      ]);
      await env.storage.hooks.delete({ org, stackId: stackA }, 'ci');
      await expect(env.storage.hooks.get({ org, stackId: stackA }, 'ci')).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.hooks.delete({ org, stackId: stackA }, 'ci')).rejects.toBeInstanceOf(NotFoundError);
      expect(await env.storage.hooks.listForStack(org, stackA)).toHaveLength(1);
    });

    it('records outbox events with stack writes that happen, and none with writes that fail', async () => {
      const org = uniqueOrg();
      const id = uniqueId();
      const created = event(org, id, 'stack_created');
      const stack = await env.storage.stacks.create({ id, org, project: 'p', stack: 'dev', tags: {}, createdAt: T0 }, [created]);
      const lost = event(org, id, 'update_started');
      await expect(env.storage.stacks.update(id, stack.revision + 5, { version: 1 }, [lost])).rejects.toBeInstanceOf(ConflictError);
      const taken = event(org, uniqueId(), 'stack_created');
      await expect(
        env.storage.stacks.create({ id: uniqueId(), org, project: 'p', stack: 'dev', tags: {}, createdAt: T0 }, [taken]),
      ).rejects.toBeInstanceOf(ConflictError);
      const started = event(org, id, 'update_started');
      const updated = await env.storage.stacks.update(id, stack.revision, { version: 1 }, [started]);
      expect(updated).toMatchObject({ version: 1, revision: stack.revision + 1 });
      const deleted = event(org, id, 'stack_deleted');
      await expect(env.storage.stacks.delete(id, stack.revision, [lost])).rejects.toBeInstanceOf(ConflictError);
      await env.storage.stacks.delete(id, updated.revision, [deleted]);

      const claimed = await claimMine([created.id, lost.id, taken.id, started.id, deleted.id]);
      expect(claimed.map((e) => e.id).sort()).toEqual([created.id, started.id, deleted.id].sort());
      expect(claimed.find((e) => e.id === created.id)).toEqual(created);
      for (const e of claimed) await env.storage.hooks.completeEvent(e.id);
    });

    it('records outbox events with update writes that happen, and none with writes that fail', async () => {
      const org = uniqueOrg();
      const stackId = uniqueId();
      const updateId = `${stackId}.${'a'.repeat(32)}`;
      await env.storage.updates.create({
        id: updateId,
        stackId,
        kind: 'preview',
        dryRun: true,
        status: 'in-progress',
        requestedBy: 'alice',
        createdAt: T0,
        environment: {},
        config: {},
      });
      const lost = event(org, stackId, 'preview_failed');
      await expect(env.storage.updates.update(stackId, updateId, 7, { status: 'failed' }, [lost])).rejects.toBeInstanceOf(
        ConflictError,
      );
      const done = event(org, stackId, 'preview_succeeded');
      const record = await env.storage.updates.update(stackId, updateId, 1, { status: 'succeeded' }, [done]);
      expect(record).toMatchObject({ status: 'succeeded', revision: 2 });
      const claimed = await claimMine([lost.id, done.id]);
      expect(claimed.map((e) => e.id)).toEqual([done.id]);
      await env.storage.hooks.completeEvent(done.id);
    });

    it('hands an outbox event to one claimer at a time, again after the claim expires, never after completion', async () => {
      const org = uniqueOrg();
      const id = uniqueId();
      const created = event(org, id);
      await env.storage.stacks.create({ id, org, project: 'p', stack: 's', tags: {}, createdAt: T0 }, [created]);
      const [first, second] = await Promise.all([
        env.storage.hooks.claimEvents(T0, T0 + 1_000, 100),
        env.storage.hooks.claimEvents(T0, T0 + 1_000, 100),
      ]);
      const winners = [first, second].filter((list) => list.some((e) => e.id === created.id));
      expect(winners).toHaveLength(1);
      expect(await claimMine([created.id], T0 + 500)).toEqual([]);
      expect(await claimMine([created.id], T0 + 1_001)).toHaveLength(1);
      await env.storage.hooks.completeEvent(created.id);
      expect(await claimMine([created.id], T0 + 100_000)).toEqual([]);
    });

    it('creates a delivery once, claims it exclusively, records attempts, and dead-letters it', async () => {
      const org = uniqueOrg();
      const id = newEventId(T0);
      const first = await env.storage.hooks.createDelivery(delivery(org, 'ci', id));
      const again = await env.storage.hooks.createDelivery({ ...delivery(org, 'ci', id), payload: { b: 2 } });
      expect(first.created).toBe(true);
      expect(again).toEqual({ delivery: first.delivery, created: false });

      const due = (await env.storage.hooks.dueDeliveries(T0, 100)).filter((d) => d.org === org);
      expect(due.map((d) => d.id)).toEqual([id]);
      const claims = await Promise.all([
        env.storage.hooks.claimDelivery(due[0]!, due[0]!.revision, T0, T0 + 1_000),
        env.storage.hooks.claimDelivery(due[0]!, due[0]!.revision, T0, T0 + 1_000),
      ]);
      const claimed = claims.filter((c): c is DeliveryRecord => c !== undefined);
      expect(claimed).toHaveLength(1);
      expect((await env.storage.hooks.dueDeliveries(T0 + 10, 100)).filter((d) => d.org === org)).toEqual([]);

      const attempt = { attempt: 1, at: T0, ok: false, latencyMs: 12, responseCode: 500, error: 'answered 500' };
      const retry = await env.storage.hooks.recordAttempt(claimed[0]!, claimed[0]!.revision, attempt, {
        status: 'pending',
        nextAttemptAt: T0 + 5_000,
      });
      expect(retry).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 5_000, attempts: [attempt] });
      expect(retry.claimedUntil).toBeUndefined();
      await expect(
        env.storage.hooks.recordAttempt(claimed[0]!, claimed[0]!.revision, attempt, { status: 'succeeded' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.hooks.dueDeliveries(T0 + 4_999, 100)).filter((d) => d.org === org)).toEqual([]);
      const later = (await env.storage.hooks.dueDeliveries(T0 + 5_000, 100)).filter((d) => d.org === org);
      expect(later.map((d) => d.id)).toEqual([id]);

      const reclaimed = await env.storage.hooks.claimDelivery(later[0]!, later[0]!.revision, T0 + 5_000, T0 + 6_000);
      const dead = await env.storage.hooks.recordAttempt(reclaimed!, reclaimed!.revision, { ...attempt, attempt: 2 }, { status: 'dead' });
      expect(dead.status).toBe('dead');
      expect(dead.attempts.map((a) => a.attempt)).toEqual([1, 2]);
      expect((await env.storage.hooks.listDeadLetters(org, 10)).map((d) => d.id)).toEqual([id]);
      expect((await env.storage.hooks.dueDeliveries(T0 + 100_000, 100)).filter((d) => d.org === org)).toEqual([]);
      expect(await env.storage.hooks.getDelivery({ org, hook: 'ci', id })).toEqual(dead);
    });

    it('keeps a delivery created claimed away from dispatchers until its claim runs out', async () => {
      const org = uniqueOrg();
      const id = newEventId(T0);
      const { delivery: created } = await env.storage.hooks.createDelivery({ ...delivery(org, 'ci', id), claimedUntil: T0 + 1_000 });

      const duringClaim = (await env.storage.hooks.dueDeliveries(T0 + 500, 100)).filter((d) => d.org === org);
      const rival = await env.storage.hooks.claimDelivery(created, created.revision, T0 + 500, T0 + 2_000);
      const afterClaim = (await env.storage.hooks.dueDeliveries(T0 + 1_001, 100)).filter((d) => d.org === org);

      expect(created).toMatchObject({ status: 'pending', claimedUntil: T0 + 1_000, revision: 1 });
      expect(duringClaim).toEqual([]);
      expect(rival).toBeUndefined();
      expect(afterClaim.map((d) => d.id)).toEqual([id]);
    });

    it('lists a hook\'s deliveries newest first', async () => {
      const org = uniqueOrg();
      const ids = [newEventId(T0), newEventId(T0 + 1), newEventId(T0 + 2)];
      for (const id of ids) await env.storage.hooks.createDelivery(delivery(org, 'ci', id));
      await env.storage.hooks.createDelivery(delivery(org, 'other', newEventId(T0 + 3)));
      const listed = await env.storage.hooks.listDeliveries({ org }, 'ci', 2);
      expect(listed.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    });
  });
}
