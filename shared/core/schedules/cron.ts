import { InvalidInputError } from '../errors.js';

/** A parsed five-field cron expression (minute hour day-of-month month day-of-week), evaluated in UTC. */
export interface CronSpec {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Day-of-month and day-of-week were both restricted: a day matches either (as cron does). */
  eitherDay: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS },
] as const;
/** The search gives up after this many years without a match (`0 0 30 2 *` never fires). */
const SEARCH_YEARS = 5;

function value(text: string, field: (typeof FIELDS)[number], expression: string): number {
  const named = 'names' in field ? field.names.indexOf(text.toLowerCase() as never) : -1;
  if (named >= 0) return named + field.min;
  if (!/^[0-9]{1,2}$/.test(text)) throw badCron(expression, `'${text}' is not a ${field.name}`);
  const n = Number(text);
  if (n < field.min || n > field.max) throw badCron(expression, `${field.name} ${n} is outside ${field.min}–${field.max}`);
  return n;
}

function parseField(text: string, field: (typeof FIELDS)[number], expression: string): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (stepText !== undefined && (!/^[0-9]{1,2}$/.test(stepText) || step < 1)) throw badCron(expression, `'${part}' has a bad step`);
    let low: number;
    let high: number;
    if (range === '*') [low, high] = [field.min, field.max];
    else if (range!.includes('-')) {
      const [from, to] = range!.split('-');
      [low, high] = [value(from!, field, expression), value(to!, field, expression)];
      if (low > high) throw badCron(expression, `the range '${range}' runs backwards`);
    } else {
      low = value(range!, field, expression);
      high = stepText === undefined ? low : field.max;
    }
    for (let n = low; n <= high; n += step) values.add(n);
  }
  return values;
}

function badCron(expression: string, why: string): InvalidInputError {
  return new InvalidInputError(
    `Invalid cron expression '${expression.slice(0, 80)}': ${why}. Give five fields in UTC: minute hour day-of-month month day-of-week (e.g. '0 */4 * * *').`,
  );
}

/** Parses a five-field cron expression; a mistake is an `InvalidInputError` that says which field is wrong. */
export function parseCron(expression: string): CronSpec {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) throw badCron(expression, `it has ${fields.length} field(s), not 5`);
  const [minutes, hours, days, months, weekdays] = fields.map((text, i) => parseField(text, FIELDS[i]!, expression));
  if (weekdays!.has(7)) weekdays!.add(0);
  return { minutes: minutes!, hours: hours!, days: days!, months: months!, weekdays: weekdays!, eitherDay: fields[2] !== '*' && fields[4] !== '*' };
}

function dayMatches(spec: CronSpec, date: Date): boolean {
  const byMonthDay = spec.days.has(date.getUTCDate());
  const byWeekday = spec.weekdays.has(date.getUTCDay());
  return spec.eitherDay ? byMonthDay || byWeekday : byMonthDay && byWeekday;
}

/** The first time (epoch ms, a whole minute) strictly after `after` that `spec` matches; `undefined` if none within years. */
export function nextCronTime(spec: CronSpec, after: number): number | undefined {
  const date = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
  const limit = after + SEARCH_YEARS * 366 * 86_400_000;
  while (date.getTime() <= limit) {
    if (!spec.months.has(date.getUTCMonth() + 1)) {
      date.setUTCMonth(date.getUTCMonth() + 1, 1);
      date.setUTCHours(0, 0, 0, 0);
    } else if (!dayMatches(spec, date)) {
      date.setUTCDate(date.getUTCDate() + 1);
      date.setUTCHours(0, 0, 0, 0);
    } else if (!spec.hours.has(date.getUTCHours())) {
      date.setUTCHours(date.getUTCHours() + 1, 0, 0, 0);
    } else if (!spec.minutes.has(date.getUTCMinutes())) {
      date.setUTCMinutes(date.getUTCMinutes() + 1, 0, 0);
    } else {
      return date.getTime();
    }
  }
  return undefined;
}
