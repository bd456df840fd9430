import { InvalidInputError } from '../../../shared/core/errors.js';

/** Query parameters of the environment routes, read as ESC's Go client writes them. */

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `?duration=` as Go's `time.Duration.String()` writes it (`2h0m0s`, `15m0s`, `1.5h`), in milliseconds; absent or
 * empty means the service's default.
 */
export function goDurationMs(text: string | null): number | undefined {
  if (text === null || text === '') return undefined;
  const term = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    term.lastIndex = at;
    const match = term.exec(text);
    if (!match) throw new InvalidInputError(`Invalid duration '${text.slice(0, 40)}': use Go's form, e.g. 2h, 1h30m, 15m.`);
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    at = term.lastIndex;
  }
  return Math.round(total);
}

/** `?name=true|false` (absent: false), as go-querystring writes a bool. */
export function booleanQuery(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidInputError(`${name} must be true or false, got '${value.slice(0, 20)}'.`);
}

/** `?name=<whole number>` (absent: undefined). */
export function integerQuery(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^[0-9]{1,12}$/.test(value)) throw new InvalidInputError(`${name} must be a whole number, got '${value.slice(0, 20)}'.`);
  return Number(value);
}
