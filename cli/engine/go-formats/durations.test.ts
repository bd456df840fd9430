import { describe, expect, it } from 'vitest';
import { parseDurationSeconds } from './durations.js';

describe('parseDurationSeconds', () => {
  it('reads Go durations', () => {
    expect(parseDurationSeconds('2m')).toBe(120);
    expect(parseDurationSeconds('1h30m')).toBe(5400);
    expect(parseDurationSeconds('250ms')).toBe(0.25);
  });

  it('reads microseconds written with the micro sign, as Go does', () => {
    expect(parseDurationSeconds('1s500\u00b5s')).toBeCloseTo(1.0005, 9);
    expect(parseDurationSeconds('3us')).toBeCloseTo(3e-6, 12);
  });

  it('rejects empty and malformed text', () => {
    expect(parseDurationSeconds('')).toBeUndefined();
    expect(parseDurationSeconds('5 minutes')).toBeUndefined();
    expect(parseDurationSeconds('0s')).toBeUndefined();
  });
});
