import type { Range } from './diagnostics.js';

/** A plain JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * An evaluated value in ESC's checked shape: the value itself (elements and properties are values too), whether
 * it is secret or unknown (unknown: a provider was not opened, or an error left it undetermined), and where it
 * was defined (`trace.def`) over which imported value (`trace.base`).
 */
export interface EscValue {
  value: null | boolean | number | string | EscValue[] | { [key: string]: EscValue };
  secret?: boolean;
  unknown?: boolean;
  trace?: { def?: Range; base?: EscValue };
}

/** Wraps plain JSON as values (no secrets, no traces); what a provider returns for plain output. */
export function escValue(json: JsonValue, options: { secret?: boolean } = {}): EscValue {
  let value: EscValue['value'];
  if (Array.isArray(json)) value = json.map((x) => escValue(x));
  else if (json !== null && typeof json === 'object') value = Object.fromEntries(Object.entries(json).map(([k, x]) => [k, escValue(x)]));
  else value = json;
  const out: EscValue = { value };
  return options.secret ? makeSecret(out) : out;
}

/** The value marked secret, with every element and property inside it marked too (ESC's MakeSecret). */
export function makeSecret(v: EscValue): EscValue {
  let value = v.value;
  if (Array.isArray(value)) value = value.map((x) => (x.secret ? x : makeSecret(x)));
  else if (value !== null && typeof value === 'object') {
    value = Object.fromEntries(Object.entries(value).map(([k, x]) => [k, x.secret ? x : makeSecret(x)]));
  }
  return { ...v, value, secret: true };
}

/**
 * The value as plain JSON. With `redact`, secrets become `"[secret]"`; unknowns are always `"[unknown]"`
 * (ESC's ToJSON).
 */
export function toJSON(v: EscValue, redact: boolean): JsonValue {
  if (v.secret && redact) return '[secret]';
  if (v.unknown) return '[unknown]';
  const value = v.value;
  if (Array.isArray(value)) return value.map((x) => toJSON(x, redact));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, toJSON(x, redact)]));
  return value;
}

/** The value as a string the way ESC prints one (lists and objects as quoted `a,b` / `"k"="v"` lists). */
export function toEscString(v: EscValue, redact: boolean): string {
  if (v.secret && redact) return '[secret]';
  if (v.unknown) return '[unknown]';
  const value = v.value;
  if (value === null) return '';
  if (Array.isArray(value)) return value.map((x) => goQuote(toEscString(x, redact))).join(',');
  if (typeof value === 'object') {
    return Object.keys(value)
      .sort()
      .map((k) => `${goQuote(k)}=${goQuote(toEscString(value[k], redact))}`)
      .join(',');
  }
  return formatScalar(value);
}

/** A scalar as ESC prints it inside strings. */
export function formatScalar(value: boolean | number | string): string {
  return typeof value === 'number' ? formatNumber(value) : String(value);
}

/** A number as ESC prints one: integers plainly, other numbers as Go's shortest %g (exponent form below 1e-4 and from 1e6). */
export function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exponent = n === 0 ? 0 : Math.floor(Math.log10(Math.abs(n)));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, exp] = n.toExponential().split('e');
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's strconv.Quote for the strings ESC quotes: escapes quotes, backslashes and control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's json.Marshal of plain JSON: sorted object keys, `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goMarshalJSON(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(goMarshalJSON).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${goJSONString(k)}:${goMarshalJSON(v[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'string') return goJSONString(v);
  if (typeof v === 'number') return formatNumber(v);
  return JSON.stringify(v);
}

/** A string as Go's encoding/json writes it (HTML characters and U+2028/U+2029 escaped). */
export function goJSONString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
