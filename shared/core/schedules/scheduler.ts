import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { ScheduleRecord } from '../../ports/schedule-store.js';
import { audited } from '../audit/audit.js';
import { queueRun, type CreateRunRequest } from '../deployments/run-queue.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { nextExecutionOf } from './definitions.js';
import { removeTrigger } from './triggers.js';

/** What one scheduler tick did: the runs it queued, and the schedules it fired whose run could not be queued. */
export interface SchedulerTick {
  queued: { scheduleId: string; runId: string; dueAt: number }[];
  failed: { scheduleId: string; dueAt: number; error: unknown }[];
}

/**
 * What firing one due schedule did: queued its run; found that another scheduler fired that due time first; found
 * its stack gone (the schedule is removed); or fired it but could not queue the run.
 */
export type FireOutcome =
  | { kind: 'queued'; dueAt: number; runId: string }
  | { kind: 'fired-elsewhere' }
  | { kind: 'stack-gone'; dueAt: number }
  | { kind: 'failed'; dueAt: number; error: unknown };

/** Schedules looked at per tick; the rest are due at the next one. */
const TICK_LIMIT = 25;

/**
 * Fires every schedule due now, once per due time across any number of schedulers (the `serve` loop of each
 * process). On AWS the fire function fires the one schedule its trigger names with `fireTriggeredSchedule`.
 */
export async function fireDueSchedules(deps: ServiceDeps): Promise<SchedulerTick> {
  const tick: SchedulerTick = { queued: [], failed: [] };
  const now = deps.now();
  for (const schedule of await deps.storage.schedules.due(now, TICK_LIMIT)) {
    const outcome = await fireSchedule(deps, schedule, now);
    if (outcome.kind === 'queued') tick.queued.push({ scheduleId: schedule.id, runId: outcome.runId, dueAt: outcome.dueAt });
    if (outcome.kind === 'failed') tick.failed.push({ scheduleId: schedule.id, dueAt: outcome.dueAt, error: outcome.error });
  }
  return tick;
}

/**
 * Fires `schedule` (as read, due at its `nextExecution`) for that due time, once across any number of schedulers.
 * Timeline of one due time T:
 *
 *   scheduler A: read (revision r, next T) ─ update to (r+1, next after T and now) ✓ ─ queue the run
 *   scheduler B: read (revision r, next T) ─────── update to (r+1, …) ✗ ConflictError: A fired T, B moves on
 *
 * The firing is the conditional write; the run is queued after it, so a crash in between loses that one run (the
 * schedule fires again at its next time) and never queues two. A cron schedule that missed several times while no
 * scheduler ran fires once, then at its next time from now. A schedule of a stack that is gone is removed.
 */
export async function fireSchedule(deps: ServiceDeps, schedule: ScheduleRecord, now: number): Promise<FireOutcome> {
  const dueAt = schedule.nextExecution!;
  const fired: ScheduleRecord = {
    ...schedule,
    // From T when fired a moment early (a trigger's clock), so that T is never the next time again.
    nextExecution: nextExecutionOf(schedule, Math.max(now, dueAt)),
    lastExecuted: dueAt,
    modified: now,
    revision: schedule.revision + 1,
  };
  if (fired.nextExecution === undefined) delete fired.nextExecution;
  try {
    await deps.storage.schedules.update(fired, schedule.revision);
  } catch (error) {
    if (error instanceof ConflictError) return { kind: 'fired-elsewhere' };
    throw error;
  }
  try {
    const runId = await queueScheduledRun(deps, schedule);
    return runId ? { kind: 'queued', dueAt, runId } : { kind: 'stack-gone', dueAt };
  } catch (error) {
    return { kind: 'failed', dueAt, error };
  }
}

/** Which schedule a trigger wakes the fire function for (EventBridge Scheduler's input to it). */
export interface TriggeredSchedule {
  stackId: string;
  scheduleId: string;
}

/** What the fire function did: fired (`FireOutcome`), or nothing because the record is gone, paused or not yet due. */
export type TriggerOutcome = FireOutcome | { kind: 'gone' } | { kind: 'paused' } | { kind: 'not-due' };

/**
 * A trigger may wake the fire function this long before the due time by its own clock; fired then, the schedule's
 * next time is still counted from the due time. Without it a one-time trigger that came a moment early would be
 * ignored, then remove itself, and its schedule would never fire.
 */
const TRIGGER_EARLY_MS = 2_000;

/**
 * Fires the schedule a trigger names, when its record says so (docs/deployments.md, "Schedules on AWS"): the record
 * is the truth, so a trigger left over from a deleted record is removed and fires nothing, a paused one or one whose
 * expression is wider than the schedule's cron (EventBridge cannot say "day of month or day of week") does nothing,
 * and a trigger delivered twice fires once (`fireSchedule`'s conditional write).
 */
export async function fireTriggeredSchedule(deps: ServiceDeps, target: TriggeredSchedule): Promise<TriggerOutcome> {
  const schedule = await deps.storage.schedules.get(target.stackId, target.scheduleId);
  if (!schedule) {
    await removeTrigger(deps, target.scheduleId);
    return { kind: 'gone' };
  }
  if (schedule.paused) return { kind: 'paused' };
  const now = deps.now();
  if (schedule.nextExecution === undefined || schedule.nextExecution > now + TRIGGER_EARLY_MS) return { kind: 'not-due' };
  return fireSchedule(deps, schedule, now);
}

async function queueScheduledRun(deps: ServiceDeps, schedule: ScheduleRecord): Promise<string | undefined> {
  const stack = await deps.storage.stacks.getById(schedule.stackId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!stack) {
    await deps.storage.schedules.delete(schedule.stackId, schedule.id);
    await removeTrigger(deps, schedule.id);
    return undefined;
  }
  const target = formatStackRef(stack);
  const operation = String(schedule.request.operation);
  const run = await audited(
    deps,
    { login: `schedule:${schedule.id}` },
    { org: stack.org, event: 'deployment.queued', target, description: `schedule ${schedule.id} (by ${schedule.createdBy}) queued a ${operation} deployment of ${target}` },
    () => queueRun(deps, stack, schedule.request as unknown as CreateRunRequest, schedule.createdBy, 'schedule'),
  );
  return run.id;
}
