/**
 * Checks that bytes are one well-formed JSON document (RFC 8259) without building it, and delimits the members of
 * its top-level object. A checkpoint save needs to know its body is sound and to read three small members; parsing a
 * megabyte into objects only to throw them away would cost more than the rest of the save.
 */

/** Where a byte sequence stops being JSON, and why. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(`${reason} at byte ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

export interface MemberSpan {
  start: number;
  end: number;
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

const LITERALS: readonly (readonly number[])[] = [
  [...Buffer.from('true')],
  [...Buffer.from('false')],
  [...Buffer.from('null')],
];

/** The bytes that may follow a backslash inside a string (`u` is checked separately). */
const SIMPLE_ESCAPES = new Set([...Buffer.from('"\\/bfnrt')]);

function isHexDigit(byte: number): boolean {
  return (byte >= ZERO && byte <= NINE) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** What the scanner expects next. */
const enum Expect {
  Value,
  /** Right after `[`: a value or `]`. */
  ValueOrClose,
  Name,
  /** Right after `{`: a member name or `}`. */
  NameOrClose,
  /** After a value: `,` or the end of the container around it. */
  Separator,
}

/**
 * Validates `buf` as a JSON document whose top level is an object, returning the byte span of each top-level
 * member's value (a repeated name keeps its last value, as `JSON.parse` does). Throws `JsonSyntaxError` otherwise.
 */
export function scanJsonObject(buf: Uint8Array): Map<string, MemberSpan> {
  const members = new Map<string, MemberSpan>();
  const end = buf.length;
  // The document's bytes as aligned 32-bit words from the first 4-byte boundary on, for skipping plain text.
  const wordBase = (4 - (buf.byteOffset & 3)) & 3;
  const words = new Uint32Array(buf.buffer, buf.byteOffset + Math.min(wordBase, end), Math.max(0, (end - wordBase) >> 2));
  // The open containers, innermost last: 1 for an object, 0 for an array.
  let containers = new Uint8Array(64);
  let depth = 0;
  let pendingName: string | undefined;
  let valueStart = 0;
  let expect = Expect.Value;
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_OBJECT) throw new JsonSyntaxError(i, 'expected an object');

  while (true) {
    i = skipSpace(buf, i);
    const byte = buf[i];
    if (byte === undefined) {
      if (depth === 0 && expect === Expect.Separator) return members;
      throw new JsonSyntaxError(i, 'unexpected end of input');
    }
    if (expect === Expect.Separator) {
      if (depth === 0) throw new JsonSyntaxError(i, 'unexpected data after the document');
      const inObject = containers[depth - 1] === 1;
      if (byte === COMMA) {
        expect = inObject ? Expect.Name : Expect.Value;
        i += 1;
        continue;
      }
      if (byte !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) throw new JsonSyntaxError(i, inObject ? "expected ',' or '}'" : "expected ',' or ']'");
      depth -= 1;
      i += 1;
    } else if (expect === Expect.Name || expect === Expect.NameOrClose) {
      if (byte === CLOSE_OBJECT && expect === Expect.NameOrClose) {
        depth -= 1;
        i += 1;
      } else {
        if (byte !== QUOTE) throw new JsonSyntaxError(i, 'expected a member name');
        const nameEnd = scanString(buf, i, words, wordBase);
        if (depth === 1) pendingName = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + i, nameEnd - i).toString('utf8')) as string;
        i = skipSpace(buf, nameEnd);
        if (buf[i] !== COLON) throw new JsonSyntaxError(i, "expected ':'");
        i = skipSpace(buf, i + 1);
        if (depth === 1) valueStart = i;
        expect = Expect.Value;
        continue;
      }
    } else if (byte === CLOSE_ARRAY && expect === Expect.ValueOrClose) {
      depth -= 1;
      i += 1;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (depth === containers.length) {
        const grown = new Uint8Array(depth * 2);
        grown.set(containers);
        containers = grown;
      }
      containers[depth] = byte === OPEN_OBJECT ? 1 : 0;
      depth += 1;
      expect = byte === OPEN_OBJECT ? Expect.NameOrClose : Expect.ValueOrClose;
      i += 1;
      continue;
    } else if (byte === QUOTE) {
      i = scanString(buf, i, words, wordBase);
    } else if (byte === MINUS || (byte >= ZERO && byte <= NINE)) {
      i = scanNumber(buf, i);
    } else {
      i = scanLiteral(buf, i);
    }
    // A value ended (a scalar, or a container that just closed): one directly inside the top object is a member.
    expect = Expect.Separator;
    if (depth === 1 && pendingName !== undefined) {
      members.set(pendingName, { start: valueStart, end: i });
      pendingName = undefined;
    }
  }
}

function skipSpace(buf: Uint8Array, i: number): number {
  let byte = buf[i];
  while (byte === SPACE || byte === LF || byte === CR || byte === TAB) byte = buf[++i];
  return i;
}

/**
 * The index just past the string starting at `i` (which holds the opening quote). Plain text is skipped four bytes
 * at a time: a word is plain when none of its bytes is a quote, a backslash or a control character (bit tests that
 * may flag a plain word, never miss a special one; flagged words go byte by byte).
 */
function scanString(buf: Uint8Array, i: number, words: Uint32Array, wordBase: number): number {
  const end = buf.length;
  const lastWordStart = wordBase + words.length * 4;
  let j = i + 1;
  while (j < end) {
    if (((j - wordBase) & 3) === 0 && j >= wordBase && j < lastWordStart) {
      const word = words[(j - wordBase) >> 2]!;
      const quote = word ^ 0x22222222;
      const backslash = word ^ 0x5c5c5c5c;
      const special = ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((word - 0x20202020) & ~word);
      if ((special & 0x80808080) === 0) {
        j += 4;
        continue;
      }
    }
    const byte = buf[j]!;
    if (byte === QUOTE) return j + 1;
    if (byte !== BACKSLASH) {
      if (byte < SPACE) throw new JsonSyntaxError(j, 'control character in a string');
      j += 1;
      continue;
    }
    const escaped = buf[j + 1];
    if (escaped === 0x75) {
      for (let k = j + 2; k < j + 6; k++) if (!isHexDigit(buf[k] ?? -1)) throw new JsonSyntaxError(k, 'bad \\u escape');
      j += 6;
    } else if (escaped !== undefined && SIMPLE_ESCAPES.has(escaped)) {
      j += 2;
    } else {
      throw new JsonSyntaxError(j, 'bad escape');
    }
  }
  throw new JsonSyntaxError(end, 'unterminated string');
}

function scanDigits(buf: Uint8Array, i: number): number {
  let byte = buf[i];
  while (byte !== undefined && byte >= ZERO && byte <= NINE) byte = buf[++i];
  return i;
}

/** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` */
function scanNumber(buf: Uint8Array, i: number): number {
  const start = i;
  if (buf[i] === MINUS) i += 1;
  if (buf[i] === ZERO) {
    i += 1;
  } else {
    const after = scanDigits(buf, i);
    if (after === i) throw new JsonSyntaxError(i, 'bad number');
    i = after;
  }
  if (buf[i] === DOT) {
    const after = scanDigits(buf, i + 1);
    if (after === i + 1) throw new JsonSyntaxError(i + 1, 'bad number');
    i = after;
  }
  if (buf[i] === LOWER_E || buf[i] === UPPER_E) {
    i += 1;
    if (buf[i] === PLUS || buf[i] === MINUS) i += 1;
    const after = scanDigits(buf, i);
    if (after === i) throw new JsonSyntaxError(i, 'bad number');
    i = after;
  }
  if (i === start) throw new JsonSyntaxError(i, 'bad number');
  return i;
}

function scanLiteral(buf: Uint8Array, i: number): number {
  for (const literal of LITERALS) {
    if (buf[i] !== literal[0]) continue;
    for (let k = 1; k < literal.length; k++) if (buf[i + k] !== literal[k]) throw new JsonSyntaxError(i + k, 'bad literal');
    return i + literal.length;
  }
  throw new JsonSyntaxError(i, 'unexpected character');
}
