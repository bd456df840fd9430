import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSchedulerServer, type SchedulerStandIn } from '../../../test/support/scheduler-server.js';
import { UnavailableError } from '../../core/errors.js';
import type { ScheduleRecord } from '../../ports/schedule-store.js';
import { EventBridgeScheduleTriggers, parseTriggerInput, scheduleTriggersFromEnv } from './eventbridge-schedule-triggers.js';

const TARGET = {
  groupName: 'stackyard-schedules',
  fireFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:schedule-fire',
  roleArn: 'arn:aws:iam::000000000000:role/scheduler',
};

let scheduler: SchedulerStandIn;
let client: SchedulerClient;
let triggers: EventBridgeScheduleTriggers;

function record(fields: Partial<ScheduleRecord>): ScheduleRecord {
  return {
    id: '0b9a6c8e-2f4e-4f7e-9b7e-5f1f3c2d1a00',
    stackId: 'stack-1',
    org: 'acme',
    kind: 'drift',
    request: { operation: 'detect-drift' },
    paused: false,
    created: 0,
    modified: 0,
    createdBy: 'alice',
    revision: 1,
    ...fields,
  };
}

beforeAll(async () => {
  scheduler = await startSchedulerServer();
  client = new SchedulerClient({ endpoint: scheduler.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
  triggers = new EventBridgeScheduleTriggers(TARGET, client);
});

afterAll(async () => {
  client.destroy();
  await scheduler.stop();
});

describe('EventBridgeScheduleTriggers', () => {
  it('creates one schedule per stack schedule: its cron in UTC, enabled, no window, the fire function with its ids', async () => {
    await triggers.put(record({ id: 'a0000000-0000-4000-8000-000000000001', cron: '30 9 * * 1-5' }));

    const held = scheduler.schedule(TARGET.groupName, 'a0000000-0000-4000-8000-000000000001');
    expect(held).toMatchObject({
      ScheduleExpression: 'cron(30 9 ? * 2-6 *)',
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      ActionAfterCompletion: 'NONE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: TARGET.fireFunctionArn, RoleArn: TARGET.roleArn },
    });
    expect(parseTriggerInput(JSON.parse(held!.Target.Input!))).toEqual({ stackId: 'stack-1', scheduleId: 'a0000000-0000-4000-8000-000000000001' });
  });

  it('replaces the schedule when it exists: paused is DISABLED, resumed ENABLED with the new expression', async () => {
    const id = 'a0000000-0000-4000-8000-000000000002';
    await triggers.put(record({ id, cron: '0 * * * *' }));

    await triggers.put(record({ id, cron: '0 */4 * * *', paused: true }));
    const paused = scheduler.schedule(TARGET.groupName, id);
    await triggers.put(record({ id, cron: '0 */4 * * *', paused: false }));

    expect(paused).toMatchObject({ State: 'DISABLED', ScheduleExpression: 'cron(0 0,4,8,12,16,20 * * ? *)' });
    expect(scheduler.schedule(TARGET.groupName, id)?.State).toBe('ENABLED');
  });

  it('gives a one-time schedule an at() expression that deletes itself after it fired', async () => {
    const id = 'a0000000-0000-4000-8000-000000000003';

    await triggers.put(record({ id, kind: 'ttl', once: Date.parse('2027-05-01T12:00:30Z') }));

    expect(scheduler.schedule(TARGET.groupName, id)).toMatchObject({ ScheduleExpression: 'at(2027-05-01T12:01:00)', ActionAfterCompletion: 'DELETE' });
  });

  it('removes the schedule, and removing a missing one succeeds', async () => {
    const id = 'a0000000-0000-4000-8000-000000000004';
    await triggers.put(record({ id, cron: '0 0 * * *' }));

    await triggers.remove(id);
    await triggers.remove(id);

    expect(scheduler.schedule(TARGET.groupName, id)).toBeUndefined();
  });

  it('turns an unreachable or failing Scheduler into UnavailableError (503: send the request again)', async () => {
    scheduler.failNext(1);

    const put = triggers.put(record({ id: 'a0000000-0000-4000-8000-000000000005', cron: '0 0 * * *' }));

    await expect(put).rejects.toThrow(UnavailableError);
    expect(scheduler.schedule(TARGET.groupName, 'a0000000-0000-4000-8000-000000000005')).toBeUndefined();
  });
});

describe('scheduleTriggersFromEnv', () => {
  it('has triggers only when the group, the fire function and the role are all set', () => {
    const env = { STACKYARD_SCHEDULE_GROUP: 'g', STACKYARD_SCHEDULE_FIRE_ARN: TARGET.fireFunctionArn, STACKYARD_SCHEDULER_ROLE_ARN: TARGET.roleArn };
    expect(scheduleTriggersFromEnv({})).toBeUndefined();
    expect(scheduleTriggersFromEnv({ ...env, STACKYARD_SCHEDULER_ROLE_ARN: '' })).toBeUndefined();
    expect(scheduleTriggersFromEnv(env)).toBeInstanceOf(EventBridgeScheduleTriggers);
  });
});

describe('parseTriggerInput', () => {
  it('drops inputs that are not a trigger', () => {
    expect(parseTriggerInput(null)).toBeUndefined();
    expect(parseTriggerInput({ stackId: 's' })).toBeUndefined();
  });
});
