import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import type { ScheduleRecord } from '../../ports/index.js';
import type { ContractEnv, ContractSetup } from './setup.js';

/** A cron schedule of a stack, due at `nextExecution`. */
export function cronSchedule(stackId: string, nextExecution: number): ScheduleRecord {
  return {
    id: randomUUID(),
    stackId,
    org: 'acme',
    kind: 'drift',
    cron: '0 * * * *',
    request: { operation: 'detect-drift' },
    paused: false,
    nextExecution,
    created: 1,
    modified: 1,
    createdBy: 'alice',
    revision: 1,
  };
}

/** ScheduleStore guarantees: writes at the revision read, the due list across stacks, removal. */
export function scheduleStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`ScheduleStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    // Far in the future, so schedules of other suites sharing the table are not due before these.
    const base = 9_000_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('creates once, reads, lists oldest first and removes', async () => {
      const stackId = randomUUID();
      const first = cronSchedule(stackId, base);
      const second = { ...cronSchedule(stackId, base), created: 2 };

      await env.storage.schedules.create(first);
      await env.storage.schedules.create(second);

      await expect(env.storage.schedules.create(first)).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.schedules.get(stackId, first.id)).toEqual(first);
      expect((await env.storage.schedules.list(stackId)).map((s) => s.id)).toEqual([first.id, second.id]);
      await env.storage.schedules.delete(stackId, first.id);
      await env.storage.schedules.delete(stackId, first.id);
      expect(await env.storage.schedules.get(stackId, first.id)).toBeUndefined();
      expect((await env.storage.schedules.list(stackId)).map((s) => s.id)).toEqual([second.id]);
      await env.storage.schedules.delete(stackId, second.id);
    });

    it('applies an update only at the revision read: of two firings of one due time, one wins', async () => {
      const schedule = cronSchedule(randomUUID(), base + 1_000);
      await env.storage.schedules.create(schedule);
      const fired = { ...schedule, nextExecution: base + 3_601_000, lastExecuted: base + 1_000, revision: 2 };

      await env.storage.schedules.update(fired, 1);

      await expect(env.storage.schedules.update({ ...fired, nextExecution: base + 9_999_000 }, 1)).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.schedules.get(schedule.stackId, schedule.id)).toEqual(fired);
      await env.storage.schedules.delete(schedule.stackId, schedule.id);
    });

    it('lists due schedules across stacks, earliest first; firing, pausing and removing take them off the list', async () => {
      const later = cronSchedule(randomUUID(), base + 20_000);
      const earlier = cronSchedule(randomUUID(), base + 10_000);
      const paused = { ...cronSchedule(randomUUID(), base + 5_000), paused: true };
      const future = cronSchedule(randomUUID(), base + 90_000);
      for (const s of [later, earlier, paused, future]) await env.storage.schedules.create(s);
      const ours = async (now: number) =>
        (await env.storage.schedules.due(now, 100)).filter((s) => [later, earlier, paused, future].some((o) => o.id === s.id)).map((s) => s.id);

      expect(await ours(base + 30_000)).toEqual([earlier.id, later.id]);
      await env.storage.schedules.update({ ...earlier, nextExecution: base + 100_000, revision: 2 }, 1);
      await env.storage.schedules.update({ ...later, paused: true, revision: 2 }, 1);
      expect(await ours(base + 30_000)).toEqual([]);
      expect(await ours(base + 95_000)).toEqual([future.id]);
      await env.storage.schedules.delete(future.stackId, future.id);
      expect(await ours(base + 200_000)).toEqual([earlier.id]);
      await env.storage.schedules.update({ ...paused, paused: false, revision: 2 }, 1);
      expect(await ours(base + 200_000)).toEqual([paused.id, earlier.id]);
      for (const s of [later, earlier, paused]) await env.storage.schedules.delete(s.stackId, s.id);
    });
  });
}
