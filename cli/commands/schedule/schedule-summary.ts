/**
 * How `stack schedule` commands name and show a schedule, as `pulumi stack schedule` does (stack_schedule.go): its
 * kind (raw, drift, ttl) read from the deployment it queues, a settings summary, and ISO 8601 times as users type them.
 */
import type { ScheduleView } from '../../../shared/core/schedules/definitions.js';
import type { ScheduleKind } from '../../../shared/ports/schedule-store.js';
import { UserError } from '../../output/errors.js';
import type { CommandContext } from '../context.js';

/** Pulumi's `scheduleSummary`: one schedule as `--output json` prints it. */
export interface ScheduleSummary {
  id: string;
  type: string;
  settings: string;
  schedule: string;
  nextRun?: string;
  lastRun?: string;
  created?: string;
  /** Stackyard's own: whether the schedule is paused (`stack schedule pause|resume`). */
  paused: boolean;
}

interface RequestShape {
  operation?: string;
  operationContext?: { options?: { remediateIfDriftDetected?: boolean; deleteAfterDestroy?: boolean } };
}

const requestOf = (schedule: ScheduleView) => (schedule.definition?.request ?? {}) as RequestShape;

/** raw, drift or ttl: a `detect-drift` is drift, a `destroy` with an operation context is TTL, the rest raw. */
export function scheduleKind(schedule: ScheduleView): ScheduleKind {
  const request = requestOf(schedule);
  if (request.operation === 'detect-drift') return 'drift';
  if (request.operation === 'destroy' && request.operationContext !== undefined) return 'ttl';
  return 'raw';
}

/** "detect + auto-remediate", "destroy + delete stack", "pulumi update": what the schedule does. */
export function scheduleSettings(schedule: ScheduleView): string {
  const request = requestOf(schedule);
  const options = request.operationContext?.options ?? {};
  if (request.operation === 'detect-drift') return options.remediateIfDriftDetected ? 'detect + auto-remediate' : 'detect';
  if (request.operation === 'destroy') return options.deleteAfterDestroy ? 'destroy + delete stack' : 'destroy';
  return `pulumi ${request.operation ?? ''}`.trimEnd();
}

/** The cron expression, or `Once` for a one-time schedule (its time is the next run). */
export function scheduleWhen(schedule: ScheduleView): string {
  if (schedule.scheduleCron) return schedule.scheduleCron;
  return schedule.scheduleOnce ? 'Once' : '';
}

/** The summary `--output json` prints. */
export function summarizeSchedule(schedule: ScheduleView): ScheduleSummary {
  return {
    id: schedule.id,
    type: scheduleKind(schedule),
    settings: scheduleSettings(schedule),
    schedule: scheduleWhen(schedule),
    ...(schedule.nextExecution ? { nextRun: schedule.nextExecution } : {}),
    ...(schedule.lastExecuted ? { lastRun: schedule.lastExecuted } : {}),
    created: schedule.created,
    paused: schedule.paused,
  };
}

/** One schedule as `stack schedule get|new|edit` print it: JSON with `--output json`, else one field a line. */
export function printSchedule(ctx: CommandContext, schedule: ScheduleView, output: unknown): void {
  const summary = summarizeSchedule(schedule);
  if (output === 'json') return ctx.json(summary);
  const line = (label: string, value: string) => `${`${label}:`.padEnd(10)} ${value}`;
  ctx.out(
    [
      line('ID', summary.id),
      line('Type', summary.type),
      line('Settings', summary.settings),
      line('Schedule', summary.schedule),
      line('Next run', summary.nextRun ?? ''),
      line('Last run', summary.lastRun ?? '(never)'),
      line('Created', summary.created ?? ''),
      line('Paused', summary.paused ? 'yes' : 'no'),
    ].join('\n'),
  );
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const SQL = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(\.\d{1,3})?)$/;

/**
 * A time as the service's request takes it (`2026-12-31T23:59:00Z`, in UTC), from ISO 8601 with a zone (what users
 * type into --once) or the `2006-01-02 15:04:05.000` form Pulumi Cloud answers with, read as UTC.
 */
export function scheduleTimestamp(text: string, flag = '--once'): string {
  const trimmed = text.trim();
  const sql = SQL.exec(trimmed);
  const ms = ISO.test(trimmed) ? Date.parse(trimmed) : sql ? Date.parse(`${sql[1]}T${sql[2]}Z`) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UserError(`${flag} invalid timestamp "${trimmed}": must be ISO 8601 (e.g. 2026-12-31T23:59:00Z)`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The operations a raw schedule runs. */
export const RAW_OPERATIONS = ['update', 'preview', 'refresh', 'destroy'] as const;

/** `--operation`, lower-cased, or the error Pulumi gives. */
export function rawOperation(text: string): string {
  const operation = text.toLowerCase();
  if (!(RAW_OPERATIONS as readonly string[]).includes(operation)) {
    throw new UserError(`invalid --operation "${text}": must be one of update, preview, refresh, or destroy`);
  }
  return operation;
}
