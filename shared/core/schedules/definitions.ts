import { InvalidInputError } from '../errors.js';
import type { ScheduleKind, ScheduleRecord } from '../../ports/schedule-store.js';
import { deploymentOperation } from '../deployments/run-queue.js';
import { nextCronTime, parseCron } from './cron.js';

/** What a create or update route asks for, by kind (Pulumi's `CreateScheduled…Request`s). */
export interface ScheduleBody {
  scheduleCron?: string;
  scheduleOnce?: string;
  request?: Record<string, unknown>;
  autoRemediate?: boolean;
  timestamp?: string;
  deleteAfterDestroy?: boolean;
}

/** When and what a schedule runs, parsed and checked. */
export interface ScheduleDefinition {
  cron?: string;
  once?: number;
  request: Record<string, unknown>;
}

/** The operations a raw schedule may run (`pulumi stack schedule new --kind raw --operation`). */
const RAW_OPERATIONS: ReadonlySet<string> = new Set(['update', 'preview', 'refresh', 'destroy']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function instant(text: unknown, field: string): number {
  const ms = typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) throw new InvalidInputError(`${field} must be an ISO 8601 time such as 2027-01-01T00:00:00Z, got '${String(text).slice(0, 40)}'.`);
  return ms;
}

function cronOf(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '') throw new InvalidInputError('scheduleCron is required: five fields in UTC, such as 0 */4 * * *.');
  parseCron(text);
  return text.trim();
}

/**
 * Checks a request body for a schedule of `kind`: raw takes exactly one of `scheduleCron` and `scheduleOnce` and a
 * `request` naming one of update, preview, refresh or destroy; drift takes `scheduleCron` (and `autoRemediate`); TTL
 * takes `timestamp` (and `deleteAfterDestroy`). The request queued for drift and TTL is Pulumi Cloud's: a
 * `detect-drift` with `remediateIfDriftDetected`, a `destroy` with `deleteAfterDestroy`.
 */
export function scheduleDefinition(kind: ScheduleKind, body: ScheduleBody): ScheduleDefinition {
  if (kind === 'drift') {
    return {
      cron: cronOf(body.scheduleCron),
      request: { operation: 'detect-drift', inheritSettings: true, operationContext: { options: { remediateIfDriftDetected: body.autoRemediate === true } } },
    };
  }
  if (kind === 'ttl') {
    return {
      once: instant(body.timestamp, 'timestamp'),
      request: { operation: 'destroy', inheritSettings: true, operationContext: { options: { deleteAfterDestroy: body.deleteAfterDestroy === true } } },
    };
  }
  const hasCron = body.scheduleCron !== undefined && body.scheduleCron !== '';
  const hasOnce = body.scheduleOnce !== undefined && body.scheduleOnce !== '';
  if (hasCron === hasOnce) throw new InvalidInputError('Give exactly one of scheduleCron and scheduleOnce.');
  if (!isObject(body.request)) throw new InvalidInputError('request is required: the deployment to run, as { "operation": "update" }.');
  const operation = deploymentOperation(body.request as { operation: string });
  if (!RAW_OPERATIONS.has(operation)) {
    throw new InvalidInputError(`A schedule runs update, preview, refresh or destroy, not ${operation}: use …/deployments/drift/schedules for drift detection.`);
  }
  return { ...(hasCron ? { cron: cronOf(body.scheduleCron) } : { once: instant(body.scheduleOnce, 'scheduleOnce') }), request: body.request };
}

/** When a schedule fires next after `after` (epoch ms): its cron's next minute, or its one time if still ahead. */
export function nextExecutionOf(definition: Pick<ScheduleDefinition, 'cron' | 'once'>, after: number): number | undefined {
  if (definition.cron !== undefined) return nextCronTime(parseCron(definition.cron), after);
  return definition.once !== undefined && definition.once > after ? definition.once : undefined;
}

/** Pulumi's `ScheduledAction` of kind `deployment`. */
export interface ScheduleView {
  id: string;
  orgID: string;
  scheduleCron?: string;
  scheduleOnce?: string;
  nextExecution?: string;
  paused: boolean;
  kind: 'deployment';
  definition: { programID: string; request: Record<string, unknown> };
  created: string;
  modified: string;
  lastExecuted?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The view of one schedule. */
export function scheduleView(schedule: ScheduleRecord): ScheduleView {
  return {
    id: schedule.id,
    orgID: schedule.org,
    ...(schedule.cron !== undefined ? { scheduleCron: schedule.cron } : {}),
    ...(schedule.once !== undefined ? { scheduleOnce: iso(schedule.once) } : {}),
    ...(schedule.nextExecution !== undefined ? { nextExecution: iso(schedule.nextExecution) } : {}),
    paused: schedule.paused,
    kind: 'deployment',
    definition: { programID: schedule.stackId, request: schedule.request },
    created: iso(schedule.created),
    modified: iso(schedule.modified),
    ...(schedule.lastExecuted !== undefined ? { lastExecuted: iso(schedule.lastExecuted) } : {}),
  };
}
