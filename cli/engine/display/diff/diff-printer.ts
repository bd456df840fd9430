/**
 * Pulumi's printing of a diff (`object_diff.go`: `printObjectDiff`, `printPropertyValueDiff`, `printTextDiff`):
 * `+ key: value` added (green), `- key: value` deleted (red), `~ key: old => new` updated (yellow) with the changed
 * characters of a one-line string colored, a multi-line string diffed line by line with two lines of context, arrays
 * and objects opened and diffed member by member; unchanged members shown too unless it is a summary.
 */
import type { PropertyMap, PropertyValue } from '../../resource/properties.js';
import type { DisplayOp } from './colors.js';
import { goEscape, goQuote } from './go-text.js';
import { decodeValue, Printer, shouldPrint, truncateText, type PrinterState } from './property-printer.js';
import { characterDiff, lineDiff, type DiffOp } from './text-diff.js';
import { arrayDiffLength, deepEquals, diffKeys, diffObjects, diffValues, isInternalKey, isPrimitive, kindOf, secretElement, type ObjectDiff, type ValueDiff } from './values.js';

type Title = (p: Printer) => void;

const titleOf = (name: string, align: number): Title => (p) => p.title(name, align);

function printAdd(p: Printer, v: PropertyValue, title: Title): void {
  const q = p.with({ op: 'create', prefix: true });
  title(q);
  q.printValue(v);
}

function printDelete(p: Printer, v: PropertyValue, title: Title): void {
  const q = p.with({ op: 'delete', prefix: true });
  title(q);
  q.printValue(v);
}

/** `printObjectDiff`: each key of the diff (only those of `include` when given), padded to the longest. */
export function printObjectDiff(p: Printer, diff: ObjectDiff, include?: readonly string[]): void {
  let keys = diffKeys(diff);
  if (include) keys = keys.filter((k) => include.includes(k));
  const width = Math.max(0, ...keys.map((k) => Buffer.byteLength(k)));
  for (const k of keys) printObjectPropertyDiff(p, k, width, diff);
}

/** `printObjectPropertyDiff`. */
export function printObjectPropertyDiff(p: Printer, key: string, width: number, diff: ObjectDiff): void {
  const title = titleOf(key, width);
  if (diff.adds.has(key)) printAdd(p, diff.adds.get(key)!, title);
  else if (diff.deletes.has(key)) printDelete(p, diff.deletes.get(key)!, title);
  else if (diff.updates.has(key)) printValueDiff(p, title, diff.updates.get(key)!);
  else {
    const same = diff.sames.get(key) ?? null;
    if (!p.s.summary && shouldPrint(same, p.s.planning)) {
      const q = p.with({ op: 'same', prefix: false });
      q.title(key, width);
      q.printValue(same);
    }
  }
}

/** `printPropertyValueDiff`. */
export function printValueDiff(printer: Printer, title: Title, diff: ValueDiff): void {
  const p = printer.with({ op: 'update', prefix: true });
  if (p.s.showSecrets && (kindOf(diff.old) === 'secret' || kindOf(diff.new) === 'secret')) {
    const old = kindOf(diff.old) === 'secret' ? secretElement(diff.old) : diff.old;
    const nv = kindOf(diff.new) === 'secret' ? secretElement(diff.new) : diff.new;
    const inner = diffValues(old, nv);
    if (inner) return printValueDiff(p, title, inner);
  }
  if (diff.array) {
    title(p);
    p.verbatim('[\n');
    const a = diff.array;
    for (let i = 0; i < arrayDiffLength(a); i++) {
      const elem = p.indented(2);
      const elemTitle: Title = (q) => q.indented(-1).indentedText(`[${i}]: `);
      if (a.adds.has(i)) printAdd(elem, a.adds.get(i)!, elemTitle);
      else if (a.deletes.has(i)) printDelete(elem, a.deletes.get(i)!, elemTitle);
      else if (a.updates.has(i)) printValueDiff(elem, elemTitle, a.updates.get(i)!);
      else if (a.sames.has(i) && !p.s.summary) {
        const same = elem.with({ op: 'same', prefix: false });
        elemTitle(same);
        same.printValue(a.sames.get(i)!);
      }
    }
    return p.unprefixed(']\n');
  }
  if (diff.object) {
    title(p);
    p.verbatim('{\n');
    printObjectDiff(p.indented(1), diff.object);
    return p.unprefixed('}\n');
  }
  const printOld = shouldPrint(diff.old, false);
  const printNew = shouldPrint(diff.new, false);
  if (printOld && printNew) {
    if (kindOf(diff.old) === 'archive' && kindOf(diff.new) === 'archive') return printChangedBlob(p, title, diff, 'archive');
    if (isPrimitive(diff.old) && isPrimitive(diff.new)) {
      title(p);
      if (typeof diff.old === 'string' && typeof diff.new === 'string' && kindOf(diff.old) === 'string' && kindOf(diff.new) === 'string') {
        return printTextDiff(p, diff.old, diff.new);
      }
      p.with({ op: 'delete' }).printPrimitive(diff.old);
      p.verbatim(' => ');
      p.with({ op: 'create' }).printPrimitive(diff.new);
      return p.verbatim('\n');
    }
  }
  if (printOld) printDelete(p, diff.old, title);
  if (printNew) printAdd(p, diff.new, title);
}

function changeText(old: string, nv: string): string {
  return old === nv ? old : `${old}->${nv}`;
}

function shortHash(v: PropertyValue): string {
  const hash = (v as PropertyMap).hash;
  return typeof hash === 'string' ? hash.slice(0, 7) : '';
}

/**
 * `printArchiveDiff` / `printAssetDiff` for blobs of one source kind: `archive(file:abc->def) { a.zip->b.zip }`;
 * text assets diffed as text; an archive of assets member by member. Blobs of different kinds: a delete and an add.
 * (Pulumi diffs assets this way only inside archives; a changed asset property is a delete and an add.)
 */
function printChangedBlob(printer: Printer, title: Title, diff: ValueDiff, what: 'asset' | 'archive'): void {
  const p = printer.with({ op: 'update', prefix: true });
  const old = diff.old as PropertyMap;
  const nv = diff.new as PropertyMap;
  const hashes = changeText(shortHash(diff.old), shortHash(diff.new));
  if (what === 'asset' && typeof old.text === 'string' && typeof nv.text === 'string') {
    title(p);
    p.verbatim(`asset(text:${hashes}) {`);
    printTextDiff(p.indented(1), old.text, nv.text);
    return p.unprefixed('}\n');
  }
  for (const source of ['path', 'uri'] as const) {
    if (typeof old[source] === 'string' && typeof nv[source] === 'string') {
      title(p);
      return p.verbatim(`${what}(${source === 'path' ? 'file' : 'uri'}:${hashes}) { ${changeText(old[source], nv[source])} }\n`);
    }
  }
  const olds = old.assets as PropertyMap | undefined;
  const news = nv.assets as PropertyMap | undefined;
  if (what === 'archive' && olds && news) {
    title(p);
    p.verbatim(`archive(assets:${hashes}) {\n`);
    printArchiveMembers(p.indented(1), olds, news);
    return p.unprefixed('}\n');
  }
  printDelete(p, diff.old, title);
  printAdd(p, diff.new, title);
}

/** `printAssetsDiff`: members in name order; removed, added, and changed (by hash) ones printed. */
function printArchiveMembers(p: Printer, olds: PropertyMap, news: PropertyMap): void {
  const names = [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort();
  const width = Math.max(0, ...[...Object.keys(olds), ...Object.keys(news)].map((n) => Buffer.byteLength(n) + 2));
  for (const name of names) {
    const title = titleOf(`"${name}"`, width);
    if (!(name in news)) printDelete(p.indented(1), olds[name]!, title);
    else if (!(name in olds)) printAdd(p.indented(1), news[name]!, title);
    else if (!deepEquals(olds[name], news[name])) {
      const kinds = [kindOf(olds[name]), kindOf(news[name])];
      if (kinds[0] !== kinds[1]) {
        printDelete(p, olds[name]!, title);
        printAdd(p, news[name]!, title);
      } else printChangedBlob(p, title, { old: olds[name]!, new: news[name]! }, kinds[0] as 'asset' | 'archive');
    }
  }
}

/** `printTextDiff`: a decoded JSON/YAML diff, a character diff on one line, or a line diff. */
export function printTextDiff(p: Printer, old: string, nv: string): void {
  if (printEncodedValueDiff(p, old, nv)) return;
  if (!old.includes('\n') && !nv.includes('\n')) return printCharacterDiff(p, characterDiff(old, nv));
  printLineDiff(p.indented(1), lineDiff(old, nv));
}

function printCharacterDiff(p: Printer, diffs: { op: DiffOp; text: string }[]): void {
  const side = (skip: DiffOp, changed: DisplayOp, close: string) => {
    p.verbatim('"');
    for (const d of diffs) if (d.op !== skip) p.with({ op: d.op === 0 ? 'same' : changed }).verbatim(goEscape(d.text));
    p.verbatim(close);
  };
  side(1, 'delete', '"');
  p.verbatim(' => ');
  side(-1, 'create', '"\n');
}

/** `printLineDiff`: changed lines with `+`/`-`, unchanged runs cut to two lines of context around `...`. */
function printLineDiff(p: Printer, diffs: { op: DiffOp; text: string }[]): void {
  p.verbatim('\n');
  const line = (op: DisplayOp, text: string) => p.with({ op, prefix: op === 'create' || op === 'delete' }).indentedText(p.s.truncateOutput ? truncateText(text) : text);
  diffs.forEach((diff, index) => {
    let lines = diff.text.split('\n');
    const print = (op: DisplayOp, from: number, to: number) => {
      for (let i = from; i < to; i++) {
        if (lines[i]!.trim() === '') continue;
        line(op, lines[i]!);
        p.write('\n');
      }
    };
    if (diff.op === 1) return print('create', 0, lines.length);
    if (diff.op === -1) return print('delete', 0, lines.length);
    lines = lines.filter((l) => l.trim() !== '');
    const context = 2;
    if (index === 0 && lines.length > context + 1) {
      line('same', '...\n');
      return print('same', lines.length - context, lines.length);
    }
    if (index !== 0 && index === diffs.length - 1 && lines.length > context + 1) {
      print('same', 0, context);
      return line('same', '...\n');
    }
    if (index !== 0 && index !== diffs.length - 1 && lines.length > 2 * context + 1) {
      print('same', 0, context);
      line('same', '...\n');
      return print('same', lines.length - context, lines.length);
    }
    print('same', 0, lines.length);
  });
}

/** `printEncodedValueDiff`: two strings both holding JSON/YAML documents are diffed as the documents. */
function printEncodedValueDiff(p: Printer, old: string, nv: string): boolean {
  const a = decodeValue(old);
  const b = a && decodeValue(nv);
  if (!a || !b) return false;
  if (deepEquals(a.value, b.value)) {
    printTextDiff(p, goQuote(old), goQuote(nv));
    return true;
  }
  p.verbatim(a.kind === b.kind ? `(${a.kind}) ` : `(${a.kind} => ${b.kind}) `);
  const diff = diffValues(a.value, b.value, isInternalKey);
  if (!diff) {
    p.with({ op: 'same' }).printValue(a.value);
    return true;
  }
  printValueDiff(p, () => undefined, diff);
  return true;
}

/** `PrintObjectDiff`: a diff at `indent`, prefixed lines. */
export function printDiffOfObjects(out: string[], diff: ObjectDiff, include: readonly string[] | undefined, state: Omit<PrinterState, 'op' | 'prefix'>): void {
  printObjectDiff(new Printer(out, { ...state, op: 'same', prefix: true }), diff, include);
}

/** `printOldNewDiffs`: the diff of two maps, internal keys left out; with no difference, the new map as unchanged. */
export function printOldNewDiffs(out: string[], olds: PropertyMap, news: PropertyMap, include: readonly string[] | undefined, state: Omit<PrinterState, 'op' | 'prefix'>): void {
  const diff = diffObjects(olds, news, isInternalKey);
  if (diff) return printDiffOfObjects(out, diff, include, state);
  new Printer(out, { ...state, op: 'same', prefix: true }).printObject(news);
}
