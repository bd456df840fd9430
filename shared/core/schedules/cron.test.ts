import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { nextCronTime, parseCron } from './cron.js';

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, after: string) => {
  const time = nextCronTime(parseCron(expression), at(after));
  return time === undefined ? undefined : new Date(time).toISOString();
};

describe('cron (five fields, UTC)', () => {
  it('finds the next matching minute strictly after the given time', () => {
    expect(next('0 */4 * * *', '2026-05-13T10:00:00Z')).toBe('2026-05-13T12:00:00.000Z');
    expect(next('0 */4 * * *', '2026-05-13T11:59:30Z')).toBe('2026-05-13T12:00:00.000Z');
    expect(next('* * * * *', '2026-05-13T10:00:00Z')).toBe('2026-05-13T10:01:00.000Z');
    expect(next('30 2 1 * *', '2026-12-15T00:00:00Z')).toBe('2027-01-01T02:30:00.000Z');
    expect(next('15,45 9-10 * * mon-fri', '2026-11-28T00:00:00Z')).toBe('2026-11-30T09:15:00.000Z');
  });

  it('matches either day field when both are restricted, as cron does; 7 is Sunday too', () => {
    expect(next('0 0 1 * 0', '2026-11-28T00:00:00Z')).toBe('2026-11-29T00:00:00.000Z');
    expect(next('0 0 1 * 0', '2026-11-29T00:00:00Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(next('0 12 * * 7', '2026-11-28T00:00:00Z')).toBe('2026-11-29T12:00:00.000Z');
  });

  it('gives up on a date that never comes', () => {
    expect(next('0 0 30 2 *', '2026-01-01T00:00:00Z')).toBeUndefined();
  });

  it('refuses malformed expressions, naming what is wrong', () => {
    expect(() => parseCron('0 */4 * *')).toThrow(/has 4 field\(s\), not 5/);
    expect(() => parseCron('60 * * * *')).toThrow(/minute 60 is outside 0–59/);
    expect(() => parseCron('0 5-2 * * *')).toThrow(/runs backwards/);
    expect(() => parseCron('0 */0 * * *')).toThrow(/bad step/);
    expect(() => parseCron('0 * * smarch *')).toThrow(InvalidInputError);
  });
});
