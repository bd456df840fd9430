import {
  ActionAfterCompletion,
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  FlexibleTimeWindowMode,
  ResourceNotFoundException,
  ScheduleState,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { InvalidInputError, UnavailableError } from '../../core/errors.js';
import type { TriggeredSchedule } from '../../core/schedules/scheduler.js';
import type { ScheduleRecord } from '../../ports/schedule-store.js';
import type { ScheduleTriggers } from '../../ports/schedule-triggers.js';
import { scheduleExpression } from './scheduler-expressions.js';

/** The variables the CDK app sets on the functions that change schedules: the group, the fire function, the role. */
export const SCHEDULE_GROUP_VARIABLE = 'STACKYARD_SCHEDULE_GROUP';
export const SCHEDULE_FIRE_ARN_VARIABLE = 'STACKYARD_SCHEDULE_FIRE_ARN';
export const SCHEDULER_ROLE_ARN_VARIABLE = 'STACKYARD_SCHEDULER_ROLE_ARN';

/** Where every trigger points: its schedule group, the fire function, and the role EventBridge invokes it with. */
export interface TriggerTarget {
  groupName: string;
  fireFunctionArn: string;
  roleArn: string;
}

/** The fire function's input: the one JSON shape a trigger carries and the fire function reads. */
export function triggerInput(schedule: Pick<ScheduleRecord, 'stackId' | 'id'>): string {
  return JSON.stringify({ stackId: schedule.stackId, scheduleId: schedule.id });
}

/** Reads an input `triggerInput` wrote; anything else is `undefined` (the fire function drops it). */
export function parseTriggerInput(value: unknown): TriggeredSchedule | undefined {
  const input = value as Partial<TriggeredSchedule> | null;
  if (typeof input !== 'object' || input === null || typeof input.stackId !== 'string' || typeof input.scheduleId !== 'string') return undefined;
  return { stackId: input.stackId, scheduleId: input.scheduleId };
}

/**
 * Schedule triggers on EventBridge Scheduler: one schedule per stack schedule, named by its id, in one group.
 * Cron times become `cron(…)` in UTC, a one time `at(…)` that deletes itself after it fired; a paused schedule's is
 * DISABLED; no flexible window, so each fires at its minute. Region, credentials and AWS_ENDPOINT_URL_SCHEDULER come
 * from the SDK's own chain. A refused or unreachable Scheduler is `UnavailableError` (503: send the same request
 * again), an expression it refuses `InvalidInputError`.
 */
export class EventBridgeScheduleTriggers implements ScheduleTriggers {
  constructor(
    private readonly target: TriggerTarget,
    private readonly scheduler: SchedulerClient = new SchedulerClient({ requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 } }),
  ) {}

  async put(schedule: ScheduleRecord): Promise<void> {
    const input: CreateScheduleCommandInput = {
      Name: schedule.id,
      GroupName: this.target.groupName,
      Description: `Stackyard ${schedule.kind} schedule of stack ${schedule.stackId}`,
      ScheduleExpression: scheduleExpression(schedule),
      ScheduleExpressionTimezone: 'UTC',
      State: schedule.paused ? ScheduleState.DISABLED : ScheduleState.ENABLED,
      FlexibleTimeWindow: { Mode: FlexibleTimeWindowMode.OFF },
      ActionAfterCompletion: schedule.cron === undefined ? ActionAfterCompletion.DELETE : ActionAfterCompletion.NONE,
      Target: { Arn: this.target.fireFunctionArn, RoleArn: this.target.roleArn, Input: triggerInput(schedule) },
    };
    try {
      try {
        await this.scheduler.send(new CreateScheduleCommand(input));
      } catch (error) {
        // Its trigger exists: an update, a pause or a resume replaces it whole.
        if (!(error instanceof ConflictException)) throw error;
        await this.scheduler.send(new UpdateScheduleCommand(input));
      }
    } catch (error) {
      throw domainError(error, `schedule ${schedule.id}`);
    }
  }

  async remove(scheduleId: string): Promise<void> {
    try {
      await this.scheduler.send(new DeleteScheduleCommand({ Name: scheduleId, GroupName: this.target.groupName }));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return;
      throw domainError(error, `the removal of schedule ${scheduleId}`);
    }
  }
}

function domainError(error: unknown, what: string): Error {
  const message = (error as Error).message.slice(0, 300);
  if (error instanceof ValidationException) return new InvalidInputError(`EventBridge Scheduler refused ${what}: ${message}.`, { cause: error });
  return new UnavailableError(`EventBridge Scheduler did not take ${what}: ${message}. Send the same request again.`, { cause: error });
}

/** The triggers the CDK app configured (all three variables set), else `undefined` (serve: its loop fires schedules). */
export function scheduleTriggersFromEnv(env: NodeJS.ProcessEnv): ScheduleTriggers | undefined {
  const groupName = env[SCHEDULE_GROUP_VARIABLE]?.trim();
  const fireFunctionArn = env[SCHEDULE_FIRE_ARN_VARIABLE]?.trim();
  const roleArn = env[SCHEDULER_ROLE_ARN_VARIABLE]?.trim();
  return groupName && fireFunctionArn && roleArn ? new EventBridgeScheduleTriggers({ groupName, fireFunctionArn, roleArn }) : undefined;
}
