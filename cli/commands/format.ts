/** Console formatting shared by the commands: aligned tables and "5 minutes ago" times, as `pulumi` prints them. */

/** Columns padded to the widest cell, separated by two spaces; an empty table prints only its headers. */
export function table(headers: string[], rows: string[][], indent = ''): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    indent +
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

const UNITS: [number, string][] = [
  [365 * 24 * 3600, 'year'],
  [30 * 24 * 3600, 'month'],
  [7 * 24 * 3600, 'week'],
  [24 * 3600, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** `now`, `1 minute ago`, `3 days ago` (go-humanize style). */
export function relativeTime(epochMs: number, now = Date.now()): string {
  const seconds = Math.round((now - epochMs) / 1000);
  if (seconds < 1) return 'now';
  for (const [size, unit] of UNITS) {
    if (seconds >= size) {
      const n = Math.floor(seconds / size);
      return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
    }
  }
  return 'now';
}

/** RFC 3339 with milliseconds in UTC, Pulumi's `FormatTime` (`2024-01-02T03:04:05.000Z`). */
export function formatTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
