/**
 * Checks that bytes are one well-formed JSON document (RFC 8259) without building it, reading them in chunks as
 * they arrive, and tells a listener where each value starts and ends. A checkpoint save needs to know its body is
 * sound and to read a few small members; parsing 40 MB into objects, or even holding the 40 MB inflated at once, only
 * to throw them away would cost more than the rest of the save.
 */
import {
  BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, CR, DOT, LF, LOWER_E, MINUS, NINE, OPEN_ARRAY, OPEN_OBJECT, PLUS,
  QUOTE, SPACE, TAB, UPPER_E, ZERO,
  mayHoldSpecialStringByte,
} from './json-bytes.js';

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

/**
 * What a scan reports. Positions are offsets in the whole document; `scanner.bytes(start, end)` reads a range while
 * it is still held (see `JsonStreamScanner.keep`). `depth` is the number of containers around the value: 0 for the
 * document, 1 for a member of the top-level object, and so on.
 */
export interface JsonScanListener {
  /** A member name (quotes included) of the object at `depth`, read up to its colon; its value follows. */
  name(start: number, end: number, depth: number): void;
  /** A value starts with `firstByte`. A container's start comes before its contents, a scalar's right before its end. */
  valueStart(start: number, depth: number, firstByte: number): void;
  /** The value started last at this depth ends (exclusive). */
  valueEnd(end: number, depth: number): void;
}


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

/** Room beyond the carried bytes and the chunk when the scanner allocates a buffer, so the next boundary fits too. */
const CARRY_ROOM = 64 * 1024;

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
 * Thrown inside a chunk when a token runs past the bytes held so far: the scan stops at that token's start and takes
 * it up again with the next chunk. At the end of the document it is a real syntax error.
 */
class NeedMoreBytes extends Error {}
const NEED_MORE = new NeedMoreBytes();

/**
 * Validates a document whose top level is an object, fed in chunks (`push`, then `end`). Throws `JsonSyntaxError`
 * where it stops being JSON, at the latest from `end`. Holds only the bytes of the token it is in, plus whatever the
 * listener asked it to `keep`.
 */
export class JsonStreamScanner {
  /** The bytes held: document offsets `[base, base + held)` live at `window[0, held)`. */
  private window: Buffer = Buffer.alloc(0);
  private held = 0;
  private base = 0;
  /** Whether `window` is this scanner's own buffer (else it is a chunk the caller passed, only read). */
  private owned = false;
  /** The scanner's own buffer while `window` is a caller's chunk, kept for the next chunk boundary. */
  private spare: Buffer | undefined;
  /** Document offset of the next byte to scan. */
  private at = 0;
  /** Document offset from which the listener needs the bytes kept, if any. */
  private kept: number | undefined;
  private final = false;
  // The open containers, innermost last: 1 for an object, 0 for an array.
  private containers = new Uint8Array(64);
  private depth = 0;
  private expect = Expect.Value;
  /** `window` as aligned 32-bit words from its first 4-byte boundary on, for skipping plain text in strings. */
  private words: Uint32Array = new Uint32Array(0);
  private wordBase = 0;

  constructor(private readonly listener: JsonScanListener) {}

  /** Keeps the bytes from document offset `start` on (until `keep(undefined)`), so `bytes` can read them later. */
  keep(start: number | undefined): void {
    this.kept = start;
  }

  /** The document's bytes `[start, end)`: valid only while they are held (inside a listener call, or kept). */
  bytes(start: number, end: number): Buffer {
    return this.window.subarray(start - this.base, end - this.base);
  }

  /** Scans the next chunk of the document. */
  push(chunk: Uint8Array): void {
    this.append(chunk);
    this.scan();
  }

  /** The document is complete: throws if it is not one JSON object. */
  end(): void {
    this.final = true;
    this.scan();
    if (this.depth !== 0 || this.expect !== Expect.Separator) {
      throw new JsonSyntaxError(this.at, 'unexpected end of input');
    }
  }

  private append(chunk: Uint8Array): void {
    // Drop what neither the scan nor the listener needs any more, then put the chunk behind what is left.
    const from = Math.min(this.at, this.kept ?? this.at) - this.base;
    const left = this.held - from;
    if (left === 0) {
      // Nothing carried over: scan the caller's chunk where it is (never written to).
      if (this.owned) this.spare = this.window;
      this.window = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.owned = false;
    } else if (this.owned && left + chunk.byteLength <= this.window.length) {
      this.window.copy(this.window, 0, from, this.held);
      this.window.set(chunk, left);
    } else {
      const needed = left + chunk.byteLength;
      // One buffer serves every chunk boundary a value straddles (they come at every chunk), with room for the value
      // to grow; grown at least twofold while a kept value spans many chunks, so its bytes are copied a bounded
      // number of times.
      const reused = this.spare && this.spare.length >= needed ? this.spare : undefined;
      const target = reused ?? Buffer.allocUnsafe(Math.max(needed + CARRY_ROOM, 2 * left));
      this.spare = undefined;
      this.window.copy(target, 0, from, this.held);
      target.set(chunk, left);
      this.window = target;
      this.owned = true;
    }
    this.base += from;
    this.held = left + chunk.byteLength;
    const offset = this.window.byteOffset;
    this.wordBase = (4 - (offset & 3)) & 3;
    const wordCount = Math.max(0, (this.held - this.wordBase) >> 2);
    this.words = wordCount === 0 ? new Uint32Array(0) : new Uint32Array(this.window.buffer, offset + this.wordBase, wordCount);
  }

  private scan(): void {
    const buf = this.window.subarray(0, this.held);
    let i = this.at - this.base;
    try {
      for (;;) {
        i = skipSpace(buf, i);
        this.at = this.base + i;
        const byte = buf[i];
        if (byte === undefined) return;
        i = this.step(buf, i, byte);
      }
    } catch (error) {
      if (error !== NEED_MORE) throw error;
      // `at` is still the start of the token that ran out of bytes; at the end of the document it never completes.
      if (this.final) throw new JsonSyntaxError(this.held + this.base, 'unexpected end of input');
    }
  }

  /** Takes one token at `buf[i]` (a byte that is not space); returns the index after it. */
  private step(buf: Buffer, i: number, byte: number): number {
    const listener = this.listener;
    if (this.expect === Expect.Separator) {
      if (this.depth === 0) throw new JsonSyntaxError(this.base + i, 'unexpected data after the document');
      const inObject = this.containers[this.depth - 1] === 1;
      if (byte === COMMA) {
        this.expect = inObject ? Expect.Name : Expect.Value;
        return i + 1;
      }
      if (byte !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        throw new JsonSyntaxError(this.base + i, inObject ? "expected ',' or '}'" : "expected ',' or ']'");
      }
      return this.close(i);
    }
    if (this.expect === Expect.Name || this.expect === Expect.NameOrClose) {
      if (byte === CLOSE_OBJECT && this.expect === Expect.NameOrClose) return this.close(i);
      if (byte !== QUOTE) throw new JsonSyntaxError(this.base + i, 'expected a member name');
      const nameEnd = this.string(buf, i);
      const colon = skipSpace(buf, nameEnd);
      if (colon >= buf.length) throw NEED_MORE;
      if (buf[colon] !== COLON) throw new JsonSyntaxError(this.base + colon, "expected ':'");
      listener.name(this.base + i, this.base + nameEnd, this.depth);
      this.expect = Expect.Value;
      return colon + 1;
    }
    if (byte === CLOSE_ARRAY && this.expect === Expect.ValueOrClose) return this.close(i);
    if (this.depth === 0 && byte !== OPEN_OBJECT) throw new JsonSyntaxError(this.base + i, 'expected an object');
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      listener.valueStart(this.base + i, this.depth, byte);
      if (this.depth === this.containers.length) {
        const grown = new Uint8Array(this.depth * 2);
        grown.set(this.containers);
        this.containers = grown;
      }
      this.containers[this.depth] = byte === OPEN_OBJECT ? 1 : 0;
      this.depth += 1;
      this.expect = byte === OPEN_OBJECT ? Expect.NameOrClose : Expect.ValueOrClose;
      return i + 1;
    }
    let end: number;
    if (byte === QUOTE) end = this.string(buf, i);
    else if (byte === MINUS || (byte >= ZERO && byte <= NINE)) end = this.number(buf, i);
    else end = this.literal(buf, i);
    listener.valueStart(this.base + i, this.depth, byte);
    listener.valueEnd(this.base + end, this.depth);
    this.expect = Expect.Separator;
    return end;
  }

  private close(i: number): number {
    this.depth -= 1;
    this.expect = Expect.Separator;
    this.listener.valueEnd(this.base + i + 1, this.depth);
    return i + 1;
  }

  /**
   * The index just past the string starting at `i` (which holds the opening quote). Plain text is skipped four bytes
   * at a time (`mayHoldSpecialStringByte`); a flagged word goes byte by byte.
   */
  private string(buf: Buffer, i: number): number {
    const end = buf.length;
    const { words, wordBase } = this;
    const lastWordStart = wordBase + words.length * 4;
    let j = i + 1;
    while (j < end) {
      if (((j - wordBase) & 3) === 0 && j >= wordBase && j < lastWordStart) {
        const word = words[(j - wordBase) >> 2]!;
        if (!mayHoldSpecialStringByte(word)) {
          j += 4;
          continue;
        }
      }
      const byte = buf[j]!;
      if (byte === QUOTE) return j + 1;
      if (byte !== BACKSLASH) {
        if (byte < SPACE) throw new JsonSyntaxError(this.base + j, 'control character in a string');
        j += 1;
        continue;
      }
      const escaped = buf[j + 1];
      if (escaped === undefined) throw NEED_MORE;
      if (escaped === 0x75) {
        if (j + 6 > end) throw NEED_MORE;
        for (let k = j + 2; k < j + 6; k++) if (!isHexDigit(buf[k]!)) throw new JsonSyntaxError(this.base + k, 'bad \\u escape');
        j += 6;
      } else if (SIMPLE_ESCAPES.has(escaped)) {
        j += 2;
      } else {
        throw new JsonSyntaxError(this.base + j, 'bad escape');
      }
    }
    throw NEED_MORE;
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, which must be followed by a byte that is not part of it. */
  private number(buf: Buffer, i: number): number {
    const start = i;
    if (buf[i] === MINUS) i += 1;
    if (buf[i] === ZERO) {
      i += 1;
    } else {
      i = this.digits(buf, i);
    }
    if (buf[i] === DOT) i = this.digits(buf, i + 1);
    if (buf[i] === LOWER_E || buf[i] === UPPER_E) {
      i += 1;
      if (buf[i] === PLUS || buf[i] === MINUS) i += 1;
      i = this.digits(buf, i);
    }
    // A number that reaches the end of what is held may go on in the next chunk.
    if (i >= buf.length && !this.final) throw NEED_MORE;
    if (i === start) throw new JsonSyntaxError(this.base + i, 'bad number');
    return i;
  }

  /** At least one digit from `i`; the index after the last. */
  private digits(buf: Buffer, i: number): number {
    const start = i;
    let byte = buf[i];
    while (byte !== undefined && byte >= ZERO && byte <= NINE) byte = buf[++i];
    if (i === start) {
      if (i >= buf.length) throw NEED_MORE;
      throw new JsonSyntaxError(this.base + i, 'bad number');
    }
    return i;
  }

  private literal(buf: Buffer, i: number): number {
    for (const literal of LITERALS) {
      if (buf[i] !== literal[0]) continue;
      for (let k = 1; k < literal.length; k++) {
        if (i + k >= buf.length) throw NEED_MORE;
        if (buf[i + k] !== literal[k]) throw new JsonSyntaxError(this.base + i + k, 'bad literal');
      }
      return i + literal.length;
    }
    throw new JsonSyntaxError(this.base + i, 'unexpected character');
  }
}

function skipSpace(buf: Uint8Array, i: number): number {
  let byte = buf[i];
  while (byte === SPACE || byte === LF || byte === CR || byte === TAB) byte = buf[++i];
  return i;
}
