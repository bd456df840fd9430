import type { ScheduleRecord } from '../../ports/schedule-store.js';
import type { ServiceDeps } from '../kernel/deps.js';

/**
 * Brings the trigger of `schedule` in line with its record (docs/deployments.md, "Schedules on AWS"): put while the
 * schedule has times ahead (a cron, or a one time still to come), removed once it has none. Without triggers (serve)
 * nothing is done: serve's loop reads due schedules from the store.
 */
export async function syncTrigger(deps: ServiceDeps, schedule: ScheduleRecord): Promise<void> {
  const triggers = deps.options.scheduleTriggers;
  if (!triggers) return;
  const hasTimesAhead = schedule.cron !== undefined || (schedule.once !== undefined && schedule.once > deps.now());
  await (hasTimesAhead ? triggers.put(schedule) : triggers.remove(schedule.id));
}

/** Removes the trigger of a schedule whose record is gone (nothing without triggers). */
export async function removeTrigger(deps: ServiceDeps, scheduleId: string): Promise<void> {
  await deps.options.scheduleTriggers?.remove(scheduleId);
}
