/**
 * Go's ways of writing text that Pulumi's diff display relies on: `strconv.Quote` (`%q`), `strconv.QuoteToGraphic`,
 * and `%g`/`%.f` for numbers. Written from Go's documented rules, so strings and numbers read as `pulumi` shows them.
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const GRAPHIC = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u;
const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function quoteWith(s: string, keep: (ch: string) => boolean): string {
  let out = '"';
  for (const ch of s) {
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === ' ' || keep(ch)) out += ch;
    else if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else {
      const code = ch.codePointAt(0)!;
      out += code < 0x80 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    }
  }
  return `${out}"`;
}

/** Go's `strconv.Quote` (what `%q` prints): printable characters kept, the rest escaped. */
export function goQuote(s: string): string {
  return quoteWith(s, (ch) => PRINTABLE.test(ch));
}

/** Go's `strconv.QuoteToGraphic`: as `goQuote`, but spaces of every kind are kept. */
export function goQuoteToGraphic(s: string): string {
  return quoteWith(s, (ch) => GRAPHIC.test(ch));
}

/** Pulumi's `escape`: `goQuote` without its quotes. */
export function goEscape(s: string): string {
  return goQuote(s).slice(1, -1);
}

/** Go's `%.f` for whole numbers and `%g` otherwise (exponent form below 1e-4 and from 1e6, two exponent digits). */
export function goNumber(n: number): string {
  if (Number.isInteger(n)) return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 0 });
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, e] = n.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(n);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}
