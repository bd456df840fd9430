import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { ScheduleRecord } from '../../ports/schedule-store.js';
import { audited } from '../audit/audit.js';
import { queueRun, type CreateRunRequest } from '../deployments/run-queue.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { nextExecutionOf } from './definitions.js';

/** What one scheduler tick did: the runs it queued, and the schedules it fired whose run could not be queued. */
export interface SchedulerTick {
  queued: { scheduleId: string; runId: string; dueAt: number }[];
  failed: { scheduleId: string; dueAt: number; error: unknown }[];
}

/** Schedules looked at per tick; the rest are due at the next one. */
const TICK_LIMIT = 25;

/**
 * Fires every schedule due now, once per due time across any number of schedulers (the `serve` loop of each process;
 * on AWS, the function EventBridge Scheduler invokes). Timeline of one due time T:
 *
 *   scheduler A: read (revision r, next T) ─ update to (r+1, next after now) ✓ ─ queue the run
 *   scheduler B: read (revision r, next T) ─────── update to (r+1, …) ✗ ConflictError: A fired T, B moves on
 *
 * The firing is the conditional write; the run is queued after it, so a crash in between loses that one run (the
 * schedule fires again at its next time) and never queues two. A cron schedule that missed several times while no
 * scheduler ran fires once, then at its next time from now. A schedule of a stack that is gone is removed.
 */
export async function fireDueSchedules(deps: ServiceDeps): Promise<SchedulerTick> {
  const tick: SchedulerTick = { queued: [], failed: [] };
  const now = deps.now();
  for (const schedule of await deps.storage.schedules.due(now, TICK_LIMIT)) {
    const dueAt = schedule.nextExecution!;
    const fired: ScheduleRecord = { ...schedule, nextExecution: nextExecutionOf(schedule, now), lastExecuted: dueAt, modified: now, revision: schedule.revision + 1 };
    if (fired.nextExecution === undefined) delete fired.nextExecution;
    try {
      await deps.storage.schedules.update(fired, schedule.revision);
    } catch (error) {
      if (error instanceof ConflictError) continue;
      throw error;
    }
    try {
      const runId = await queueScheduledRun(deps, schedule);
      if (runId) tick.queued.push({ scheduleId: schedule.id, runId, dueAt });
    } catch (error) {
      tick.failed.push({ scheduleId: schedule.id, dueAt, error });
    }
  }
  return tick;
}

async function queueScheduledRun(deps: ServiceDeps, schedule: ScheduleRecord): Promise<string | undefined> {
  const stack = await deps.storage.stacks.getById(schedule.stackId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!stack) {
    await deps.storage.schedules.delete(schedule.stackId, schedule.id);
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
