/**
 * Property values laid out as Pulumi's display lays them out (`object_diff.go`'s property printer): one key a line,
 * keys sorted and padded to the longest, nested objects and arrays opened on their line and closed at the parent's
 * indent, array items as `[i]: `, strings quoted, a string holding a JSON object or array shown decoded after
 * `(json) `, secrets as `[secret]`, unknowns as `[unknown]`. Engine-internal keys (`__…`) are left out.
 */
import { isSecret, OUTPUT_VALUE_SIG, SIG_KEY, UNKNOWN, type PropertyMap, type PropertyValue } from '../resource/properties.js';

const INDENT = '    ';

function isObjectValue(v: PropertyValue): v is { [key: string]: PropertyValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's `%q` of a string, which for printable text is JSON's quoting. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/** Go's `%.f` for whole numbers, `%g` otherwise. */
function formatNumber(n: number): string {
  if (Number.isInteger(n)) return n.toFixed(0);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return String(n);
}

/** A JSON object or array a string holds, as Pulumi decodes it for display. */
function decodedJson(s: string): PropertyValue | undefined {
  const text = s.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    const value = JSON.parse(text) as PropertyValue;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether Pulumi prints an output value at all: no nulls, empty strings, empty arrays or empty objects. */
export function printable(v: PropertyValue | undefined): boolean {
  if (v === null || v === undefined || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObjectValue(v)) return Object.keys(v).length > 0;
  return true;
}

/** Renders a value starting at the current column; nested lines are indented `indent` levels. */
function valueText(v: PropertyValue, indent: number): string {
  const pad = INDENT.repeat(indent);
  if (v === null) return '<null>';
  if (v === UNKNOWN) return '[unknown]';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') {
    const decoded = decodedJson(v);
    return decoded === undefined ? quote(v) : `(json) ${valueText(decoded, indent)}\n`;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x, i) => `${pad}${INDENT}[${i}]: ${valueText(x, indent + 1)}\n`).join('')}${pad}]`;
  }
  if (isSecret(v)) return '[secret]';
  if (v[SIG_KEY] === OUTPUT_VALUE_SIG) return 'value' in v ? valueText(v.value!, indent) : '[unknown]';
  if (Object.keys(v).length === 0) return '{}';
  return `{\n${objectText(v, indent + 1)}${pad}}`;
}

/** The lines of a property map at `indent` levels, each `key: value` with keys padded to the longest. */
export function objectText(props: PropertyMap, indent: number, keep: (key: string) => boolean = () => true): string {
  const keys = Object.keys(props).sort();
  const width = Math.max(0, ...keys.map((k) => k.length));
  const pad = INDENT.repeat(indent);
  return keys
    .filter((k) => !k.startsWith('__') && keep(k))
    .map((k) => `${pad}${k.padEnd(width)}: ${valueText(props[k]!, indent)}\n`)
    .join('');
}

/** Go's `tokens.Type.DisplayName`: `aws:s3/bucket:Bucket` reads `aws:s3:Bucket`. */
export function typeDisplayName(type: string): string {
  const parts = type.split(':');
  if (parts.length !== 3 || !parts[2]) return type;
  const [pkg, module, name] = parts as [string, string, string];
  const slash = module.lastIndexOf('/');
  if (slash < 0) return type;
  const camel = name.charAt(0).toLowerCase() + name.slice(1);
  return module.slice(slash + 1) === camel ? `${pkg}:${module.slice(0, slash)}:${name}` : type;
}
