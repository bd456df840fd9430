/**
 * Schedules on AWS, end to end but for EventBridge itself: the schedule service on DynamoDB Local puts each schedule's
 * trigger on an EventBridge Scheduler stand-in; the fire function (this handler, as EventBridge invokes it with the
 * trigger's input) fires what the record says is due, once per due time, and queues the run on an SQS stand-in.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnv } from '../../test/support/aws-stand-ins.js';
import { startRaceTable, type RaceTable } from '../../test/support/race-table.js';
import { startSchedulerServer, type SchedulerStandIn } from '../../test/support/scheduler-server.js';
import { startSqsServer, type SqsStandIn } from '../../test/support/sqs-server.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { parseRunNotice } from '../../shared/adapters/aws/sqs-run-queue.js';
import { scheduleTriggersFromEnv } from '../../shared/adapters/aws/eventbridge-schedule-triggers.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import { UnavailableError } from '../../shared/core/errors.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import { createScheduleService, type ScheduleService } from '../../shared/core/schedules/schedule-service.js';
import type { Storage } from '../../shared/ports/index.js';

const GROUP = 'stackyard-schedules';
const MINUTE = 60_000;

let race: RaceTable;
let scheduler: SchedulerStandIn;
let sqs: SqsStandIn;
let restoreEnv: () => void;
let storage: Storage;
let admin: Principal;
let fire: (event: unknown) => Promise<{ kind: string }>;

/** The schedule service as the API function builds it, on a clock `offsetMs` from now. */
function schedulesAt(offsetMs: number): ScheduleService {
  return createScheduleService(serviceDeps(storage, { now: () => Date.now() + offsetMs, scheduleTriggers: scheduleTriggersFromEnv(process.env) }));
}

async function stackWithSettings(): Promise<{ org: string; project: string; stack: string; id: string }> {
  const ref = { org: 'acme', project: 'app', stack: `s-${randomUUID().slice(0, 8)}` };
  const id = randomUUID();
  await storage.stacks.create({ id, ...ref, tags: {}, createdAt: Date.now() });
  await storage.deployments.putSettings(
    { stackId: id, settings: { sourceContext: { git: { repoUrl: 'https://git.example/app.git', branch: 'main' } } }, version: 1, modifiedAt: Date.now(), modifiedBy: 'admin' },
    undefined,
  );
  return { ...ref, id };
}

/** The input EventBridge hands the fire function: the one the stand-in holds for `scheduleId`. */
function triggerInputOf(scheduleId: string): unknown {
  return JSON.parse(scheduler.schedule(GROUP, scheduleId)!.Target.Input!);
}

beforeAll(async () => {
  race = await startRaceTable(1);
  scheduler = await startSchedulerServer();
  sqs = await startSqsServer();
  restoreEnv = applyEnv({
    STACKYARD_TABLE: race.table,
    STACKYARD_BUCKET: 'unused',
    STACKYARD_KMS_KEY_ID: 'unused',
    AWS_ENDPOINT_URL_SCHEDULER: scheduler.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    STACKYARD_RUN_QUEUE_URL: sqs.createQueue('runs'),
    STACKYARD_SCHEDULE_GROUP: GROUP,
    STACKYARD_SCHEDULE_FIRE_ARN: 'arn:aws:lambda:us-east-1:000000000000:function:schedule-fire',
    STACKYARD_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/scheduler',
  });
  storage = createAwsStorage({ table: race.table, bucket: 'unused', kmsKeyId: 'unused', clients: race.clients[0]! });
  const identity = createIdentityService(serviceDeps(storage));
  await identity.ensureAdmin('admin', 'schedule-fire-admin-token');
  await identity.createOrg(await identity.authenticate('schedule-fire-admin-token'), 'acme');
  admin = await identity.authenticate('schedule-fire-admin-token');
  fire = (await import('./schedule-fire.js')).handler;
}, 120_000);

afterAll(async () => {
  restoreEnv?.();
  await storage?.close();
  await sqs?.stop();
  await scheduler?.stop();
  await race?.stop();
});

describe('schedule triggers on EventBridge Scheduler', () => {
  it('puts a trigger on create, disables it on pause, enables it on resume and removes it on delete', async () => {
    const stack = await stackWithSettings();
    const schedules = schedulesAt(0);

    const created = await schedules.create(admin, stack, 'drift', { scheduleCron: '0 */6 * * *', autoRemediate: true });
    const onCreate = scheduler.schedule(GROUP, created.id);
    await schedules.setPaused(admin, stack, created.id, true);
    const onPause = scheduler.schedule(GROUP, created.id)?.State;
    await schedules.setPaused(admin, stack, created.id, false);
    const onResume = scheduler.schedule(GROUP, created.id)?.State;
    await schedules.remove(admin, stack, created.id);

    expect(onCreate).toMatchObject({ ScheduleExpression: 'cron(0 0,6,12,18 * * ? *)', State: 'ENABLED', FlexibleTimeWindow: { Mode: 'OFF' } });
    expect(JSON.parse(onCreate!.Target.Input!)).toEqual({ stackId: stack.id, scheduleId: created.id });
    expect([onPause, onResume]).toEqual(['DISABLED', 'ENABLED']);
    expect(scheduler.schedule(GROUP, created.id)).toBeUndefined();
  });

  it('keeps no schedule whose trigger EventBridge refused: create answers 503 and stores nothing', async () => {
    const stack = await stackWithSettings();
    scheduler.failNext(10);

    const create = schedulesAt(0).create(admin, stack, 'ttl', { timestamp: new Date(Date.now() + 60 * MINUTE).toISOString() });

    await expect(create).rejects.toThrow(UnavailableError);
    scheduler.failNext(0);
    expect(await storage.schedules.list(stack.id)).toEqual([]);
  });

  it('fires a due schedule once when its trigger is delivered twice for one due time, and queues one run', async () => {
    // Arrange: made ten minutes ago, so its first time (within five minutes of then) is due now.
    const stack = await stackWithSettings();
    const made = await schedulesAt(-10 * MINUTE).create(admin, stack, 'raw', { scheduleCron: '*/5 * * * *', request: { operation: 'refresh' } });
    const input = triggerInputOf(made.id);
    const before = sqs.messages('runs').length;

    // Act
    const outcomes = await Promise.all([fire(input), fire(input)]);

    // Assert
    const runs = await storage.deployments.listRuns(stack.id, 10);
    expect(outcomes.map((outcome) => outcome.kind).filter((kind) => kind === 'queued')).toEqual(['queued']);
    expect(runs.map((run) => [run.operation, run.initiator])).toEqual([['refresh', 'schedule']]);
    const notices = sqs.messages('runs').slice(before).map((message) => parseRunNotice(message.body));
    expect(notices).toEqual([{ runId: runs[0]!.id, stackId: stack.id, version: 1 }]);
    const after = await storage.schedules.get(stack.id, made.id);
    expect(after!.nextExecution).toBeGreaterThan(Date.now() - 5 * MINUTE);
  });

  it('fires nothing for a paused schedule or one not yet due', async () => {
    const stack = await stackWithSettings();
    const paused = await schedulesAt(-10 * MINUTE).create(admin, stack, 'raw', { scheduleCron: '*/5 * * * *', request: { operation: 'update' } });
    await schedulesAt(-10 * MINUTE).setPaused(admin, stack, paused.id, true);
    const later = await schedulesAt(0).create(admin, stack, 'ttl', { timestamp: new Date(Date.now() + 60 * MINUTE).toISOString() });

    const outcomes = [await fire(triggerInputOf(paused.id)), await fire(triggerInputOf(later.id))];

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['paused', 'not-due']);
    expect(await storage.deployments.listRuns(stack.id, 10)).toEqual([]);
  });

  it('removes a trigger left behind by a deleted record, firing nothing', async () => {
    const stack = await stackWithSettings();
    const made = await schedulesAt(-10 * MINUTE).create(admin, stack, 'raw', { scheduleCron: '*/5 * * * *', request: { operation: 'update' } });
    const input = triggerInputOf(made.id);
    await storage.schedules.delete(stack.id, made.id);

    const outcome = await fire(input);

    expect(outcome.kind).toBe('gone');
    expect(scheduler.schedule(GROUP, made.id)).toBeUndefined();
    expect(await storage.deployments.listRuns(stack.id, 10)).toEqual([]);
  });
});
