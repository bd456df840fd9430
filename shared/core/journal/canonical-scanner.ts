/**
 * The canonical-text check of stored-base.ts: whether a stored resource's bytes are exactly what `JSON.stringify`
 * writes for its parsed form, so the replay may keep them as bytes.
 */
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, DOT, LOWER_E, LOWER_U, MINUS, NINE, OPEN_ARRAY, OPEN_OBJECT, PLUS, QUOTE, SPACE, UPPER_E, ZERO, mayHoldSpecialStringByte } from '../checkpoints/json-bytes.js';

/** Escapes `JSON.stringify` writes as two characters: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`. */
const SHORT_ESCAPES = new Set([...Buffer.from('"\\bfnrt')]);
/** Control characters `JSON.stringify` writes as a short escape rather than `\u00xx`. */
const SHORT_ESCAPED_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

/**
 * Members of a resource the replay reads from a base resource it keeps (features, alias rewriting). A stored
 * resource that has one is parsed, so the replay sees its value.
 */
const READ_MEMBERS = [
  'aliases',
  'extensionRef',
  'refreshBeforeUpdate',
  'replaceWith',
  'resourceHooks',
  'snippetID',
  'taint',
  'viewOf',
].map((name) => Buffer.from(name));

/** Objects with more members than this are checked for repeated names with a set rather than pairwise. */
const MAX_COMPARED_MEMBERS = 64;

/**
 * Decides whether a value's bytes are valid JSON that `JSON.stringify(JSON.parse(bytes))` writes back unchanged
 * (the bytes are known to be valid UTF-8). `resourceEnd` answers the end of the object at `i`, or -1 when its text
 * is not that; `readMember` then says whether the object has a member the replay reads.
 */
export class CanonicalScanner {
  /** Member name spans (start, end) of the objects being scanned, innermost last, up to `top`. */
  private names = new Int32Array(256);
  private top = 0;
  readMember = false;
  /** The bytes as aligned 32-bit words from the first 4-byte boundary on, for skipping plain text in strings. */
  private readonly words: Uint32Array;
  private readonly wordBase: number;

  constructor(private readonly buf: Buffer) {
    this.wordBase = (4 - (buf.byteOffset & 3)) & 3;
    this.words = new Uint32Array(buf.buffer, buf.byteOffset + Math.min(this.wordBase, buf.length), Math.max(0, (buf.length - this.wordBase) >> 2));
  }

  resourceEnd(i: number): number {
    this.top = 0;
    this.readMember = false;
    return this.object(i, true);
  }

  private value(i: number): number {
    const byte = this.buf[i];
    if (byte === QUOTE) return this.string(i);
    if (byte === OPEN_OBJECT) return this.object(i, false);
    if (byte === OPEN_ARRAY) return this.array(i);
    if (byte === MINUS || (byte !== undefined && byte >= ZERO && byte <= NINE)) return this.number(i);
    for (const literal of LITERALS) if (sameBytes(this.buf, i, literal)) return i + literal.length;
    return -1;
  }

  private object(i: number, resource: boolean): number {
    const buf = this.buf;
    i += 1;
    if (buf[i] === CLOSE_OBJECT) return i + 1;
    const first = this.top;
    let seen: Set<string> | undefined;
    for (;;) {
      if (buf[i] !== QUOTE) return -1;
      const nameEnd = this.string(i);
      if (nameEnd < 0 || this.integerLike(i + 1, nameEnd - 1)) return -1;
      // A repeated name: `JSON.parse` keeps one member where the text has two. Small objects compare names
      // pairwise; past MAX_COMPARED_MEMBERS the names go into a set, so a wide map costs linear time.
      if (seen === undefined && this.top - first >= 2 * MAX_COMPARED_MEMBERS) {
        seen = new Set();
        for (let k = first; k < this.top; k += 2) seen.add(buf.toString('latin1', this.names[k]!, this.names[k + 1]!));
      }
      if (seen !== undefined) {
        const name = buf.toString('latin1', i, nameEnd);
        if (seen.has(name)) return -1;
        seen.add(name);
      } else {
        for (let k = first; k < this.top; k += 2) {
          if (sameSpan(buf, this.names[k]!, this.names[k + 1]!, i, nameEnd)) return -1;
        }
      }
      if (resource && !this.readMember) this.readMember = READ_MEMBERS.some((name) => sameName(buf, i + 1, nameEnd - 1, name));
      this.pushName(i, nameEnd);
      if (buf[nameEnd] !== COLON) return -1;
      const valueEnd = this.value(nameEnd + 1);
      if (valueEnd < 0) return -1;
      if (buf[valueEnd] === CLOSE_OBJECT) {
        this.top = first;
        return valueEnd + 1;
      }
      if (buf[valueEnd] !== COMMA) return -1;
      i = valueEnd + 1;
    }
  }

  private pushName(start: number, end: number): void {
    if (this.top + 2 > this.names.length) {
      const grown = new Int32Array(this.names.length * 2);
      grown.set(this.names);
      this.names = grown;
    }
    this.names[this.top] = start;
    this.names[this.top + 1] = end;
    this.top += 2;
  }

  private array(i: number): number {
    i += 1;
    if (this.buf[i] === CLOSE_ARRAY) return i + 1;
    for (;;) {
      const valueEnd = this.value(i);
      if (valueEnd < 0) return -1;
      if (this.buf[valueEnd] === CLOSE_ARRAY) return valueEnd + 1;
      if (this.buf[valueEnd] !== COMMA) return -1;
      i = valueEnd + 1;
    }
  }

  /** A string in the form `JSON.stringify` writes: only the escapes it writes, and no raw control character. */
  private string(i: number): number {
    const buf = this.buf;
    const words = this.words;
    const wordBase = this.wordBase;
    const lastWordStart = wordBase + words.length * 4;
    let j = i + 1;
    for (;;) {
      // plain text four bytes at a time; a flagged word goes byte by byte
      if (((j - wordBase) & 3) === 0 && j >= wordBase && j < lastWordStart) {
        const word = words[(j - wordBase) >> 2]!;
        if (!mayHoldSpecialStringByte(word)) {
          j += 4;
          continue;
        }
      }
      const byte = buf[j];
      if (byte === undefined || byte < SPACE) return -1;
      if (byte === QUOTE) return j + 1;
      if (byte !== BACKSLASH) {
        j += 1;
        continue;
      }
      const escaped = buf[j + 1];
      if (escaped !== undefined && SHORT_ESCAPES.has(escaped)) {
        j += 2;
        continue;
      }
      if (escaped !== LOWER_U) return -1;
      // `\u00xx` in lower-case hex, for a control character without a short escape: nothing else is written so.
      const code = lowerHex(buf, j + 2);
      if (code < 0 || code >= SPACE || SHORT_ESCAPED_CONTROLS.has(code)) return -1;
      j += 6;
    }
  }

  /** A number in the form `JSON.stringify` writes (its shortest round-trip form). */
  private number(i: number): number {
    const buf = this.buf;
    let j = i;
    if (buf[j] === MINUS) j += 1;
    if (buf[j] === ZERO) j += 1;
    else if (isDigit(buf[j])) while (isDigit(buf[j])) j += 1;
    else return -1;
    let plain = true;
    if (buf[j] === DOT) {
      plain = false;
      j += 1;
      if (!isDigit(buf[j])) return -1;
      while (isDigit(buf[j])) j += 1;
    }
    if (buf[j] === LOWER_E || buf[j] === UPPER_E) {
      plain = false;
      j += 1;
      if (buf[j] === PLUS || buf[j] === MINUS) j += 1;
      if (!isDigit(buf[j])) return -1;
      while (isDigit(buf[j])) j += 1;
    }
    // Integers below 2^53 without a sign on zero are already in shortest form; anything else is checked exactly.
    const digits = j - i - (buf[i] === MINUS ? 1 : 0);
    if (plain && digits <= 15 && !(buf[i] === MINUS && buf[i + 1] === ZERO)) return j;
    const text = buf.toString('latin1', i, j);
    return String(Number(text)) === text ? j : -1;
  }

  /** Names made of digits only: `JSON.parse` orders array-index names first, whatever their place in the text. */
  private integerLike(start: number, end: number): boolean {
    for (let k = start; k < end; k++) if (!isDigit(this.buf[k])) return false;
    return end > start;
  }
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= ZERO && byte <= NINE;
}

function lowerHex(buf: Buffer, i: number): number {
  let code = 0;
  for (let k = i; k < i + 4; k++) {
    const byte = buf[k];
    if (byte === undefined) return -1;
    const digit = byte >= ZERO && byte <= NINE ? byte - ZERO : byte >= 0x61 && byte <= 0x66 ? byte - 0x61 + 10 : -1;
    if (digit < 0) return -1;
    code = code * 16 + digit;
  }
  return code;
}

/** Whether the bytes at `start` are `expected`. */
function sameBytes(buf: Buffer, start: number, expected: Buffer): boolean {
  if (start + expected.length > buf.length) return false;
  for (let k = 0; k < expected.length; k++) if (buf[start + k] !== expected[k]) return false;
  return true;
}

/** Whether the name between `start` and `end` (quotes excluded) is `name`. */
function sameName(buf: Buffer, start: number, end: number, name: Buffer): boolean {
  return end - start === name.length && sameBytes(buf, start, name);
}

/** Whether two spans of `buf` hold the same bytes (member names are short, so a loop beats a native call). */
function sameSpan(buf: Buffer, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let k = 0; k < aEnd - aStart; k++) if (buf[aStart + k] !== buf[bStart + k]) return false;
  return true;
}
