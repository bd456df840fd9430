/**
 * Each due time of a schedule fires once across schedulers: six schedulers with separate AWS clients (six `serve`
 * processes on one table) tick at once against DynamoDB Local, again and again as the clock moves through several due
 * times; every due time queues exactly one run, and a one-time schedule queues one run in all.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import { fireDueSchedules } from '../../shared/core/schedules/scheduler.js';
import type { ScheduleRecord, Storage } from '../../shared/ports/index.js';
import { startRaceTable, type RaceTable } from '../support/race-table.js';

const SCHEDULERS = 6;
let race: RaceTable;
let storages: Storage[] = [];
let clock = Date.parse('2027-03-01T10:30:00Z');

/** Every scheduler ticks at the same moment; returns how many runs they queued together. */
async function tickTogether(schedulers: ServiceDeps[]): Promise<number> {
  const ticks = await Promise.all(schedulers.map((deps) => fireDueSchedules(deps)));
  for (const tick of ticks) expect(tick.failed).toEqual([]);
  return ticks.reduce((sum, tick) => sum + tick.queued.length, 0);
}

async function stackWithSettings(storage: Storage): Promise<string> {
  const id = randomUUID();
  await storage.stacks.create({ id, org: 'acme', project: 'app', stack: `s-${id.slice(0, 8)}`, tags: {}, createdAt: clock });
  await storage.deployments.putSettings(
    { stackId: id, settings: { sourceContext: { git: { repoUrl: 'https://git.example/app.git', branch: 'main' } } }, version: 1, modifiedAt: clock, modifiedBy: 'alice' },
    undefined,
  );
  return id;
}

function schedule(stackId: string, timing: Pick<ScheduleRecord, 'cron' | 'once'>, nextExecution: number): ScheduleRecord {
  return {
    id: randomUUID(),
    stackId,
    org: 'acme',
    kind: timing.cron ? 'drift' : 'ttl',
    ...timing,
    request: timing.cron ? { operation: 'detect-drift' } : { operation: 'destroy' },
    paused: false,
    nextExecution,
    created: clock,
    modified: clock,
    createdBy: 'alice',
    revision: 1,
  };
}

beforeAll(async () => {
  race = await startRaceTable(SCHEDULERS);
  storages = race.clients.map((clients) => createAwsStorage({ table: race.table, bucket: 'unused', kmsKeyId: 'unused', clients, now: () => clock }));
}, 120_000);

afterAll(async () => {
  for (const storage of storages) await storage.close();
  await race?.stop();
});

describe('racing schedulers on DynamoDB', () => {
  it('queues exactly one run per due time of an hourly schedule, and one for a one-time schedule', async () => {
    const schedulers = storages.map((storage) => serviceDeps(storage, { now: () => clock }));
    const cronStack = await stackWithSettings(storages[0]!);
    const onceStack = await stackWithSettings(storages[0]!);
    const hourly = schedule(cronStack, { cron: '0 * * * *' }, Date.parse('2027-03-01T11:00:00Z'));
    const once = schedule(onceStack, { once: Date.parse('2027-03-01T11:30:00Z') }, Date.parse('2027-03-01T11:30:00Z'));
    await storages[0]!.schedules.create(hourly);
    await storages[0]!.schedules.create(once);

    const queuedPerTick: number[] = [];
    // Ticks every 15 minutes through 11:00 … 13:45: due times 11:00, 12:00, 13:00 (hourly) and 11:30 (once).
    for (let minute = 30; minute <= 225; minute += 15) {
      clock = Date.parse('2027-03-01T10:30:00Z') + (minute - 30) * 60_000;
      queuedPerTick.push(await tickTogether(schedulers));
    }

    const hourlyRuns = await storages[0]!.deployments.listRuns(cronStack, 100);
    const onceRuns = await storages[0]!.deployments.listRuns(onceStack, 100);
    expect(hourlyRuns.map((run) => run.operation)).toEqual(['detect-drift', 'detect-drift', 'detect-drift']);
    expect(hourlyRuns.map((run) => run.version)).toEqual([3, 2, 1]);
    expect(onceRuns.map((run) => [run.operation, run.initiator])).toEqual([['destroy', 'schedule']]);
    expect(queuedPerTick.reduce((a, b) => a + b, 0)).toBe(4);
    const after = await storages[0]!.schedules.get(cronStack, hourly.id);
    expect(after?.lastExecuted).toBe(Date.parse('2027-03-01T13:00:00Z'));
    expect(after?.nextExecution).toBe(Date.parse('2027-03-01T14:00:00Z'));
    expect((await storages[0]!.schedules.get(onceStack, once.id))?.nextExecution).toBeUndefined();
  });
});
