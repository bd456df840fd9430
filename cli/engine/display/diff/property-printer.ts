/**
 * Pulumi's property printer (`object_diff.go`'s `propertyPrinter`): values one key a line, keys padded to the
 * longest, nested objects and arrays indented four columns, strings holding a JSON (or multi-line YAML) object or
 * array shown decoded after `(json) `/`(yaml) `, secrets as `[secret]`, unknowns as `[unknown]`. Every piece is
 * written in its step's color with a reset after it, as Pulumi writes it, so the colored text matches too.
 */
import { parseAllDocuments } from 'yaml';
import type { PropertyMap, PropertyValue } from '../../resource/properties.js';
import { opColor, rawPrefix, RESET, type DisplayOp } from './colors.js';
import { goNumber, goQuote } from './go-text.js';
import { isInternalKey, isPrimitive, kindOf, secretElement, stableKeys } from './values.js';

/** `getIndentationString`: four columns a level, the last two replaced by the step's prefix when asked. */
export function indentation(indent: number, op: DisplayOp, prefix: boolean): string {
  const text = '    '.repeat(indent);
  return prefix && text ? text.slice(0, -2) + rawPrefix(op) : text;
}

/** How a printer prints. */
export interface PrinterState {
  op: DisplayOp;
  planning: boolean;
  prefix: boolean;
  summary: boolean;
  truncateOutput: boolean;
  showSecrets: boolean;
  indent: number;
}

type PropertyObject = { [key: string]: PropertyValue };

/** A decoded JSON or YAML document inside a string. */
interface Decoded {
  value: PropertyValue;
  kind: 'json' | 'yaml';
}

/** `decodeValue`: a string holding a JSON (or, on several lines, YAML) object or array. */
export function decodeValue(repr: string): Decoded | undefined {
  const text = repr.trim();
  let value: unknown;
  let kind: Decoded['kind'] = 'json';
  try {
    value = JSON.parse(text);
  } catch {
    if (!/[\r\n]/.test(text)) return undefined;
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.length !== 1 || docs[0]!.errors.length) return undefined;
    value = docs[0]!.toJS();
    kind = 'yaml';
  }
  return typeof value === 'object' && value !== null ? { value: value as PropertyValue, kind } : undefined;
}

/** `truncatePropertyString`: at most three lines of at most 150 characters each, `...` where cut. */
export function truncateText(text: string): string {
  const lines = text.split('\n');
  let truncated = lines.length > 3;
  const kept = Math.min(lines.length, 3);
  for (let i = 0; i < kept; i++) {
    if (lines[i]!.length > 150) {
      lines[i] = `${lines[i]!.slice(0, 150)}...`;
      truncated = true;
    }
  }
  if (!truncated) return text;
  return lines.length <= 3 ? lines.join('\n') : `${lines.slice(0, 3).join('\n')}\n...`;
}

function shortHash(hash: unknown): string {
  return typeof hash === 'string' ? hash.slice(0, 7) : '';
}

/** The printer: each `with…` gives a copy that writes to the same text. */
export class Printer {
  constructor(
    readonly out: string[],
    readonly s: PrinterState,
  ) {}

  with(change: Partial<PrinterState>): Printer {
    return new Printer(this.out, { ...this.s, ...change });
  }

  indented(amount: number): Printer {
    return this.with({ indent: this.s.indent + amount });
  }

  write(text: string): void {
    this.out.push(text);
  }

  /** `writeIndentedf` of the method: string pieces truncated when asked. */
  indentedText(text: string, prefix = this.s.prefix): void {
    this.write(opColor(this.s.op) + indentation(this.s.indent, this.s.op, prefix) + text + RESET);
  }

  /** `writeUnprefixedIndentedf`. */
  unprefixed(text: string): void {
    this.indentedText(text, false);
  }

  /** `writef` / `writeVerbatim`: in the step's color, not indented. */
  verbatim(text: string): void {
    this.write(opColor(this.s.op) + text + RESET);
  }

  title(name: string, align: number): void {
    const shown = this.s.truncateOutput ? truncateText(name) : name;
    this.indentedText(`${shown.padEnd(align)}: `);
  }

  printObject(props: PropertyMap): void {
    const keys = stableKeys(props);
    const width = Math.max(0, ...keys.map((k) => Buffer.byteLength(k)));
    for (const k of keys) {
      if (isInternalKey(k)) continue;
      this.title(k, width);
      this.printValue(props[k]!);
    }
  }

  /** `printPropertyValue`: the value, then a new line. */
  printValue(v: PropertyValue): void {
    this.printValueInline(v);
    this.verbatim('\n');
  }

  printValueInline(v: PropertyValue): void {
    const kind = kindOf(v);
    if (kind === 'secret' && this.s.showSecrets) return this.printValueInline(secretElement(v));
    if (isPrimitive(v)) return this.printPrimitive(v);
    if (kind === 'array') {
      const arr = v as PropertyValue[];
      if (arr.length === 0) return this.verbatim('[]');
      this.verbatim('[\n');
      arr.forEach((elem, i) => {
        this.indentedText(`    [${i}]: `);
        this.indented(1).printValue(elem);
      });
      return this.unprefixed(']');
    }
    const obj = v as PropertyObject;
    if (kind === 'asset') return this.printAsset(obj);
    if (kind === 'archive') return this.printArchive(obj);
    if (kind === 'resourceRef') {
      this.verbatim('{\n');
      const p = this.indented(1);
      p.title('URN', 3);
      p.verbatim(`${goQuote(String(obj.urn ?? ''))}\n`);
      p.title('ID', 3);
      p.printValue(obj.id ?? '');
      p.title('PackageVersion', 3);
      p.verbatim(`${goQuote(String(obj.packageVersion ?? ''))}\n`);
      return this.unprefixed('}');
    }
    if (Object.keys(obj).length === 0) return this.verbatim('{}');
    this.verbatim('{\n');
    this.indented(1).printObject(obj);
    this.unprefixed('}');
  }

  private printAsset(a: PropertyObject): void {
    const hash = shortHash(a.hash);
    if (typeof a.text === 'string') {
      this.verbatim(`asset(text:${hash}) {\n`);
      for (const line of a.text.split('\n')) this.unprefixed(`    ${line}\n`);
      this.unprefixed('}');
    } else if (typeof a.path === 'string') this.verbatim(`asset(file:${hash}) { ${a.path} }`);
    else if (typeof a.uri === 'string') this.verbatim(`asset(uri:${hash}) { ${a.uri} }`);
    else this.verbatim(`asset(unknown:${hash}) { }`);
  }

  private printArchive(a: PropertyObject): void {
    const hash = shortHash(a.hash);
    if (typeof a.assets === 'object' && a.assets !== null && !Array.isArray(a.assets)) {
      const assets = a.assets as PropertyObject;
      this.verbatim(`archive(assets:${hash}) {\n`);
      for (const name of Object.keys(assets).sort()) {
        this.indentedText(`    "${name}": `);
        this.indented(1).printValue(assets[name]!);
      }
      this.unprefixed('}');
    } else if (typeof a.path === 'string') this.verbatim(`archive(file:${hash}) { ${a.path} }`);
    else if (typeof a.uri === 'string') this.verbatim(`archive(uri:${hash}) { ${a.uri} }`);
    else this.verbatim(`archive(${hash}) { }`);
  }

  printPrimitive(v: PropertyValue): void {
    const kind = kindOf(v);
    if (kind === 'null') return this.verbatim('<null>');
    if (kind === 'bool' || kind === 'number') return this.verbatim(typeof v === 'number' ? goNumber(v) : String(v));
    if (kind === 'computed') return this.verbatim('[unknown]');
    if (kind === 'secret') return this.verbatim('[secret]');
    if (kind === 'output') {
      const o = v as PropertyObject;
      return 'value' in o ? this.printValueInline(o.value!) : this.verbatim('[unknown]');
    }
    const text = v as string;
    const decoded = decodeValue(text);
    if (decoded) {
      this.verbatim(`(${decoded.kind}) `);
      return this.printValue(decoded.value);
    }
    this.verbatim(goQuote(this.s.truncateOutput ? truncateText(text) : text));
  }
}

/** `PrintObject`: a whole property map at `indent`, in `op`'s color. */
export function printObject(out: string[], props: PropertyMap, state: Omit<PrinterState, 'summary'>): void {
  new Printer(out, { ...state, summary: false }).printObject(props);
}

/** `shouldPrintPropertyValue`: nulls, empty strings, arrays and objects are left out (and unknown outputs unless `outs`). */
export function shouldPrint(v: PropertyValue | undefined, outs: boolean): boolean {
  const kind = kindOf(v);
  if (kind === 'null') return false;
  if (kind === 'string' && v === '') return false;
  if (kind === 'array' && (v as PropertyValue[]).length === 0) return false;
  if (kind === 'object' && Object.keys(v as PropertyObject).length === 0) return false;
  if (kind === 'output' && !outs) return false;
  return true;
}
