/** Durations as Pulumi programs give them (Go `time.ParseDuration` syntax). */

/** Parses a Go duration (`1h30m`, `5m`, `30s`, `250ms`) into seconds; `undefined` when empty or invalid. */
export function parseDurationSeconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  // µ written as an escape: esbuild copies regular expressions as they are, and one character outside ASCII makes V8
  // read the whole CLI start-up file as two-byte text (test/cli/startup-modules.test.ts).
  const re = /(\d+(?:\.\d+)?)(ns|us|\u00b5s|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  return consumed === text.length && total > 0 ? total : undefined;
}
