import { parseCron } from '../../core/schedules/cron.js';
import type { ScheduleRecord } from '../../ports/schedule-store.js';

/** Numbers as EventBridge writes a field: `*` for all of `min`–`max`, else runs of three or more as ranges. */
function field(values: ReadonlySet<number>, min: number, max: number, shift = 0): string {
  const sorted = [...values].filter((n) => n >= min && n <= max).sort((a, b) => a - b);
  if (sorted.length === max - min + 1) return '*';
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    const [first, last] = [sorted[i]! + shift, sorted[j]! + shift];
    if (j - i >= 2) parts.push(`${first}-${last}`);
    else parts.push(...sorted.slice(i, j + 1).map((n) => String(n + shift)));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * A five-field UTC cron as EventBridge Scheduler's six-field `cron(minutes hours day-of-month month day-of-week
 * year)`, where one of the two day fields must be `?` and days of the week count from 1 (Sunday). A cron that
 * restricts both day fields matches a day by either (as cron does), which EventBridge cannot say: its expression
 * then fires on every day of those months, and the fire function fires only on the days the record is due.
 */
export function eventBridgeCron(cron: string): string {
  const spec = parseCron(cron);
  const [, , dayText, , weekdayText] = cron.trim().split(/\s+/);
  const minutes = field(spec.minutes, 0, 59);
  const hours = field(spec.hours, 0, 23);
  const months = field(spec.months, 1, 12);
  const days = field(spec.days, 1, 31);
  const weekdays = field(spec.weekdays, 0, 6, 1);
  let dayFields: string;
  if (spec.eitherDay) dayFields = `* ${months} ?`;
  else if (weekdayText !== '*') dayFields = `? ${months} ${weekdays}`;
  else dayFields = `${dayText === '*' ? '*' : days} ${months} ?`;
  return `cron(${minutes} ${hours} ${dayFields} *)`;
}

/**
 * A one-time schedule as `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the whole minute: EventBridge fires at
 * minute granularity, and a trigger that came before the record's time would find it not yet due.
 */
export function eventBridgeAt(once: number): string {
  const minute = Math.ceil(once / 60_000) * 60_000;
  return `at(${new Date(minute).toISOString().slice(0, 19)})`;
}

/** The schedule expression of `schedule`: its cron, else its one time. */
export function scheduleExpression(schedule: Pick<ScheduleRecord, 'cron' | 'once'>): string {
  if (schedule.cron !== undefined) return eventBridgeCron(schedule.cron);
  if (schedule.once === undefined) throw new Error('A schedule has a cron or a one time.');
  return eventBridgeAt(schedule.once);
}
