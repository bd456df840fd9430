import type { ScheduleRecord } from './schedule-store.js';

/**
 * What makes something call the fire function of a schedule at its times (on AWS one EventBridge Scheduler schedule
 * per stack schedule; `stackyard serve` needs none, its loop reads the due schedules from the store every tick).
 *
 * Guarantees:
 * - The ScheduleStore stays the truth. A trigger only wakes the fire function, which fires a schedule only when its
 *   record says it is due and not paused (the same conditional write as serve's loop), so a trigger that is stale,
 *   early, repeated or left over from a deleted record never fires anything on its own.
 * - `put` creates or replaces the trigger of `schedule` (its id names it): its cron times or its one time, disabled
 *   while the schedule is paused; a one-time trigger removes itself once it has fired. Returns once the trigger is
 *   stored, or throws (`UnavailableError`: try again; `InvalidInputError`: the times cannot be expressed).
 * - `remove` of a missing trigger succeeds: removing is idempotent.
 */
export interface ScheduleTriggers {
  put(schedule: ScheduleRecord): Promise<void>;
  remove(scheduleId: string): Promise<void>;
}
