/**
 * JSON as Go's `encoding/json` writes it, for text Pulumi's engine builds with `json.Marshal` and programs or
 * plugins may compare byte for byte: map keys sorted bytewise at every level, and `<`, `>`, `&`, U+2028, U+2029
 * escaped inside strings.
 */

/** `value` (plain JSON data) as Go's `json.Marshal` would write it. */
export function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return scalarText(value);
  // Sorted by hand: a JS object always lists integer-like keys first, whatever order they were added in.
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((k) => `${scalarText(k)}:${goJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

function scalarText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return typeof value === 'string' ? text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
