import { describe, expect, it } from 'vitest';
import { eventBridgeAt, eventBridgeCron } from './scheduler-expressions.js';

describe('eventBridgeCron', () => {
  it.each([
    ['0 */4 * * *', 'cron(0 0,4,8,12,16,20 * * ? *)'],
    ['*/15 * * * *', 'cron(0,15,30,45 * * * ? *)'],
    ['30 9 * * 1-5', 'cron(30 9 ? * 2-6 *)'],
    ['0 0 * * 0', 'cron(0 0 ? * 1 *)'],
    ['0 0 * * 7', 'cron(0 0 ? * 1 *)'],
    ['0 6 1,15 * *', 'cron(0 6 1,15 * ? *)'],
    ['5 4 * jan,jul *', 'cron(5 4 * 1,7 ? *)'],
    ['0 0 10-20 * *', 'cron(0 0 10-20 * ? *)'],
  ])('turns the UTC cron %s into %s (six fields, one day field ?, weekdays from 1 = Sunday)', (cron, expected) => {
    expect(eventBridgeCron(cron)).toBe(expected);
  });

  it('fires every day of the months when both day fields are restricted (cron matches either), the record deciding', () => {
    expect(eventBridgeCron('0 12 1 * 1')).toBe('cron(0 12 * * ? *)');
  });
});

describe('eventBridgeAt', () => {
  it('writes the one time in UTC, rounded up to its minute so the trigger never comes before the record is due', () => {
    expect(eventBridgeAt(Date.parse('2027-01-02T03:04:00Z'))).toBe('at(2027-01-02T03:04:00)');
    expect(eventBridgeAt(Date.parse('2027-01-02T03:04:05.250Z'))).toBe('at(2027-01-02T03:05:00)');
  });
});
