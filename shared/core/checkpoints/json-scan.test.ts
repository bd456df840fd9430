import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonStreamScanner, JsonSyntaxError } from './json-scan.js';

/** What `JSON.parse` makes of `text`: the top-level object's members re-serialized, or `undefined` if it throws. */
function oracle(text: string): Record<string, string> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, JSON.stringify(v)]));
  } catch {
    return undefined;
  }
}

/**
 * The top-level members as the scanner delimits them, fed in chunks cut at `cuts` (positions in the bytes), each
 * member's value read back through `bytes` while it is kept; `undefined` when the scanner refuses the document.
 */
function scanMembers(buf: Buffer, cuts: readonly number[] = []): Map<string, string> {
  const members = new Map<string, string>();
  let name = '';
  let start = 0;
  const scanner: JsonStreamScanner = new JsonStreamScanner({
    name(from, to, depth) {
      if (depth === 1) name = JSON.parse(scanner.bytes(from, to).toString('utf8')) as string;
    },
    valueStart(from, depth) {
      if (depth !== 1) return;
      start = from;
      scanner.keep(from);
    },
    valueEnd(to, depth) {
      if (depth !== 1) return;
      members.set(name, scanner.bytes(start, to).toString('utf8'));
      scanner.keep(undefined);
    },
  });
  let at = 0;
  for (const cut of [...cuts].sort((x, y) => x - y)) {
    const end = Math.min(cut, buf.length);
    if (end <= at) continue;
    // A copy per chunk, as inflating hands them over: the scanner must not rely on chunks being one buffer.
    scanner.push(Buffer.from(buf.subarray(at, end)));
    at = end;
  }
  scanner.push(Buffer.from(buf.subarray(at)));
  scanner.end();
  return members;
}

function scanned(text: string, cuts: readonly number[] = []): Record<string, string> | undefined {
  try {
    const members = scanMembers(Buffer.from(text), cuts);
    return Object.fromEntries([...members].map(([k, value]) => [k, JSON.stringify(JSON.parse(value))]));
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
}

/** Valid documents with varied whitespace, escapes and non-ASCII text. */
const documents = fc
  .tuple(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue()), fc.constantFrom(0, 1, 2, '\t'))
  .map(([object, indent]) => JSON.stringify(object, null, indent));

/** Where to cut a document into chunks: none, a few random places, or every byte. */
const cutsOf = (text: string) =>
  fc.oneof(
    fc.constant<number[]>([]),
    fc.array(fc.nat(Buffer.byteLength(text)), { maxLength: 6 }),
    fc.constant(Array.from({ length: Buffer.byteLength(text) }, (_, i) => i)),
  );

describe('JsonStreamScanner', () => {
  it('accepts exactly what JSON.parse accepts as an object, and delimits the same top-level members', () => {
    fc.assert(
      fc.property(documents, (text) => {
        expect(scanned(text)).toEqual(oracle(text));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same verdict and members however the bytes are cut into chunks', () => {
    const cutDocuments = documents.chain((text) => fc.tuple(fc.constant(text), cutsOf(text)));
    fc.assert(
      fc.property(cutDocuments, ([text, cuts]) => {
        expect(scanned(text, cuts)).toEqual(oracle(text));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on documents with a byte cut out, changed or inserted', () => {
    const edits = fc.tuple(documents, fc.nat(), fc.nat(), fc.constantFrom('', '"', '\\', ',', '}', ']', '{', '[', ':', '0', '-', 'e', '.', ' ', '\u0001', 'n', 'tru', 'é'));
    fc.assert(
      fc.property(edits, ([text, at, length, insert]) => {
        const start = at % (text.length + 1);
        // Through UTF-8 and back, as bytes arrive: a lone surrogate the edit may leave becomes U+FFFD for both.
        const broken = Buffer.from(text.slice(0, start) + insert + text.slice(start + (length % 3))).toString('utf8');
        expect(scanned(broken)).toEqual(oracle(broken));
        expect(scanned(broken, [start - 1, start, start + 1, start + 2])).toEqual(oracle(broken));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['[]', 'expected an object'],
    ['{"a":1', 'unexpected end of input'],
    ['{"a":01}', "expected ',' or '}'"],
    ['{"a":1.}', 'bad number'],
    ['{"a":"\\x"}', 'bad escape'],
    ['{"a":[1,]}', 'unexpected character'],
    ['{"a":1} x', 'unexpected data after the document'],
    ['{"a":"\u0007"}', 'control character in a string'],
  ])('refuses %j (%s)', (text, reason) => {
    expect(() => scanMembers(Buffer.from(text))).toThrow(reason);
  });

  it('keeps the last value of a repeated name, like JSON.parse', () => {
    const buf = Buffer.from('{"version":3, "deployment": {"version": 9}, "version" : 4 }');
    expect(scanMembers(buf).get('version')).toBe('4');
  });
});
