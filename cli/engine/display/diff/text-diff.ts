/**
 * The text diff Pulumi's display colors a changed string with: Google's diff-match-patch as sergi/go-diff runs it
 * with no time limit (`DiffTimeout = 0`, so no half-match shortcut: always Myers' bisection), then
 * `DiffCleanupEfficiency` (edit cost 4) for one-line strings, or line by line (`DiffLinesToChars`) for multi-line
 * ones. The same diff, not just a diff: the colors of a changed value depend on where its pieces are cut.
 * Works on sequences (the runes of a string, or line numbers) compared with `===`.
 */

/** -1 delete, 0 equal, 1 insert (diff-match-patch's operations). */
export type DiffOp = -1 | 0 | 1;

/** One piece of a diff. */
export interface Piece<T> {
  op: DiffOp;
  items: T[];
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function prefixLength<T>(a: readonly T[], b: readonly T[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function suffixLength<T>(a: readonly T[], b: readonly T[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

function indexOfItems<T>(long: readonly T[], short: readonly T[]): number {
  for (let i = 0; i + short.length <= long.length; i++) {
    let j = 0;
    while (j < short.length && long[i + j] === short[j]) j++;
    if (j === short.length) return i;
  }
  return -1;
}

function endsWithItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return b.length <= a.length && suffixLength(a, b) >= b.length;
}

function startsWithItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return b.length <= a.length && prefixLength(a, b) >= b.length;
}

/** `diffMainRunes` without a deadline. */
export function diffMain<T>(a: T[], b: T[]): Piece<T>[] {
  if (sameItems(a, b)) return a.length ? [{ op: 0, items: a }] : [];
  const pre = prefixLength(a, b);
  const prefix = a.slice(0, pre);
  let x = a.slice(pre);
  let y = b.slice(pre);
  const suf = suffixLength(x, y);
  const suffix = x.slice(x.length - suf);
  x = x.slice(0, x.length - suf);
  y = y.slice(0, y.length - suf);
  const diffs = diffCompute(x, y);
  if (prefix.length) diffs.unshift({ op: 0, items: prefix });
  if (suffix.length) diffs.push({ op: 0, items: suffix });
  return cleanupMerge(diffs);
}

function diffCompute<T>(a: T[], b: T[]): Piece<T>[] {
  if (a.length === 0) return [{ op: 1, items: b }];
  if (b.length === 0) return [{ op: -1, items: a }];
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  const i = indexOfItems(long, short);
  if (i !== -1) {
    const op: DiffOp = a.length > b.length ? -1 : 1;
    return [
      { op, items: long.slice(0, i) },
      { op: 0, items: short },
      { op, items: long.slice(i + short.length) },
    ];
  }
  if (short.length === 1) return [{ op: -1, items: a }, { op: 1, items: b }];
  return bisect(a, b);
}

/** Myers' middle snake, from both ends at once. */
function bisect<T>(a: T[], b: T[]): Piece<T>[] {
  const aLen = a.length;
  const bLen = b.length;
  const maxD = Math.floor((aLen + bLen + 1) / 2);
  const vOffset = maxD;
  const vLength = 2 * maxD;
  const v1 = new Array<number>(vLength).fill(-1);
  const v2 = new Array<number>(vLength).fill(-1);
  v1[vOffset + 1] = 0;
  v2[vOffset + 1] = 0;
  const delta = aLen - bLen;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = vOffset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1]! < v1[k1Offset + 1]!) ? v1[k1Offset + 1]! : v1[k1Offset - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < aLen && y1 < bLen && a[x1] === b[y1]) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > aLen) k1end += 2;
      else if (y1 > bLen) k1start += 2;
      else if (front) {
        const k2Offset = vOffset + delta - k1;
        if (k2Offset >= 0 && k2Offset < vLength && v2[k2Offset] !== -1 && x1 >= aLen - v2[k2Offset]!) return bisectSplit(a, b, x1, y1);
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = vOffset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1]! < v2[k2Offset + 1]!) ? v2[k2Offset + 1]! : v2[k2Offset - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < aLen && y2 < bLen && a[aLen - x2 - 1] === b[bLen - y2 - 1]) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > aLen) k2end += 2;
      else if (y2 > bLen) k2start += 2;
      else if (!front) {
        const k1Offset = vOffset + delta - k2;
        if (k1Offset >= 0 && k1Offset < vLength && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset]!;
          const y1 = vOffset + x1 - k1Offset;
          if (x1 >= aLen - x2) return bisectSplit(a, b, x1, y1);
        }
      }
    }
  }
  return [{ op: -1, items: a }, { op: 1, items: b }];
}

function bisectSplit<T>(a: T[], b: T[], x: number, y: number): Piece<T>[] {
  return [...diffMain(a.slice(0, x), b.slice(0, y)), ...diffMain(a.slice(x), b.slice(y))];
}

/** `DiffCleanupMerge`: joins neighbours of a kind, factors common prefixes and suffixes out, slides single edits. */
export function cleanupMerge<T>(input: Piece<T>[]): Piece<T>[] {
  const diffs = [...input.map((d) => ({ op: d.op, items: d.items })), { op: 0 as DiffOp, items: [] as T[] }];
  let pointer = 0;
  let countDelete = 0;
  let countInsert = 0;
  let textDelete: T[] = [];
  let textInsert: T[] = [];
  while (pointer < diffs.length) {
    const d = diffs[pointer]!;
    if (d.op === 1) {
      countInsert++;
      textInsert = textInsert.concat(d.items);
      pointer++;
    } else if (d.op === -1) {
      countDelete++;
      textDelete = textDelete.concat(d.items);
      pointer++;
    } else {
      if (countDelete + countInsert > 1) {
        if (countDelete !== 0 && countInsert !== 0) {
          let common = prefixLength(textInsert, textDelete);
          if (common !== 0) {
            const x = pointer - countDelete - countInsert;
            if (x > 0 && diffs[x - 1]!.op === 0) diffs[x - 1]!.items = diffs[x - 1]!.items.concat(textInsert.slice(0, common));
            else {
              diffs.unshift({ op: 0, items: textInsert.slice(0, common) });
              pointer++;
            }
            textInsert = textInsert.slice(common);
            textDelete = textDelete.slice(common);
          }
          common = suffixLength(textInsert, textDelete);
          if (common !== 0) {
            diffs[pointer]!.items = textInsert.slice(textInsert.length - common).concat(diffs[pointer]!.items);
            textInsert = textInsert.slice(0, textInsert.length - common);
            textDelete = textDelete.slice(0, textDelete.length - common);
          }
        }
        const merged: Piece<T>[] = [];
        if (countDelete !== 0) merged.push({ op: -1, items: textDelete });
        if (countInsert !== 0) merged.push({ op: 1, items: textInsert });
        diffs.splice(pointer - countDelete - countInsert, countDelete + countInsert, ...merged);
        pointer = pointer - countDelete - countInsert + 1 + merged.length;
      } else if (pointer !== 0 && diffs[pointer - 1]!.op === 0) {
        diffs[pointer - 1]!.items = diffs[pointer - 1]!.items.concat(d.items);
        diffs.splice(pointer, 1);
      } else pointer++;
      countInsert = 0;
      countDelete = 0;
      textDelete = [];
      textInsert = [];
    }
  }
  if (diffs.at(-1)!.items.length === 0) diffs.pop();
  let changes = false;
  for (pointer = 1; pointer < diffs.length - 1; pointer++) {
    const prev = diffs[pointer - 1]!;
    const cur = diffs[pointer]!;
    const next = diffs[pointer + 1]!;
    if (prev.op !== 0 || next.op !== 0) continue;
    if (endsWithItems(cur.items, prev.items)) {
      cur.items = prev.items.concat(cur.items.slice(0, cur.items.length - prev.items.length));
      next.items = prev.items.concat(next.items);
      diffs.splice(pointer - 1, 1);
      changes = true;
    } else if (startsWithItems(cur.items, next.items)) {
      prev.items = prev.items.concat(next.items);
      cur.items = cur.items.slice(next.items.length).concat(next.items);
      diffs.splice(pointer + 1, 1);
      changes = true;
    }
  }
  return changes ? cleanupMerge(diffs) : diffs;
}

/**
 * `DiffCleanupEfficiency` with an edit cost of 4: short equalities between edits are folded into them. `size` is the
 * length Go measures (`len` of a string: its UTF-8 bytes).
 */
export function cleanupEfficiency<T>(input: Piece<T>[], size: (items: T[]) => number, editCost = 4): Piece<T>[] {
  const diffs = input.map((d) => ({ op: d.op, items: d.items }));
  let changes = false;
  const equalities: number[] = [];
  let lastEquality: T[] | undefined;
  let pointer = 0;
  let preIns = false;
  let preDel = false;
  let postIns = false;
  let postDel = false;
  while (pointer < diffs.length) {
    const d = diffs[pointer]!;
    if (d.op === 0) {
      if (size(d.items) < editCost && (postIns || postDel)) {
        equalities.push(pointer);
        preIns = postIns;
        preDel = postDel;
        lastEquality = d.items;
      } else {
        equalities.length = 0;
        lastEquality = undefined;
      }
      postIns = false;
      postDel = false;
    } else {
      if (d.op === -1) postDel = true;
      else postIns = true;
      const sumPres = Number(preIns) + Number(preDel) + Number(postIns) + Number(postDel);
      if (lastEquality && size(lastEquality) > 0 && ((preIns && preDel && postIns && postDel) || (size(lastEquality) < editCost / 2 && sumPres === 3))) {
        const at = equalities.pop()!;
        diffs.splice(at, 0, { op: -1, items: lastEquality });
        diffs[at + 1]!.op = 1;
        lastEquality = undefined;
        if (preIns && preDel) {
          postIns = true;
          postDel = true;
          equalities.length = 0;
        } else {
          equalities.pop();
          pointer = equalities.length ? equalities.at(-1)! : -1;
          postIns = false;
          postDel = false;
        }
        changes = true;
      }
    }
    pointer++;
  }
  return changes ? cleanupMerge(diffs) : diffs;
}

/** UTF-8 bytes of a run of characters (Go's `len` of a string). */
export function utf8Size(chars: string[]): number {
  return Buffer.byteLength(chars.join(''), 'utf8');
}

/** The character diff of two one-line strings, cleaned up as Pulumi does. */
export function characterDiff(a: string, b: string): { op: DiffOp; text: string }[] {
  const diffs = cleanupEfficiency(diffMain(Array.from(a), Array.from(b)), utf8Size);
  return diffs.map((d) => ({ op: d.op, text: d.items.join('') }));
}

/** Go's `DiffLinesToChars` + `DiffMain` + `DiffCharsToLines`: a diff of whole lines, each keeping its `\n`. */
export function lineDiff(a: string, b: string): { op: DiffOp; text: string }[] {
  const lines: string[] = [''];
  const index = new Map<string, number>();
  const munge = (text: string): number[] => {
    const out: number[] = [];
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length - 1;
      const line = text.slice(start, end + 1);
      start = end + 1;
      let n = index.get(line);
      if (n === undefined) {
        n = lines.push(line) - 1;
        index.set(line, n);
      }
      out.push(n);
    }
    return out;
  };
  const x = munge(a);
  const y = munge(b);
  return diffMain(x, y).map((d) => ({ op: d.op, text: d.items.map((n) => lines[n]).join('') }));
}
