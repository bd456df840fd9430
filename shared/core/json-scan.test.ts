import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, scanJsonObject } from './json-scan.js';

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

function scanned(text: string): Record<string, string> | undefined {
  const buf = Buffer.from(text);
  try {
    const members = scanJsonObject(buf);
    return Object.fromEntries([...members].map(([k, span]) => [k, JSON.stringify(JSON.parse(buf.toString('utf8', span.start, span.end)))]));
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
}

/** Valid documents with varied whitespace, escapes and non-ASCII text. */
const documents = fc
  .tuple(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue()), fc.constantFrom(0, 1, 2, '\t'))
  .map(([object, indent]) => JSON.stringify(object, null, indent));

describe('scanJsonObject', () => {
  it('accepts exactly what JSON.parse accepts as an object, and delimits the same top-level members', () => {
    fc.assert(
      fc.property(documents, (text) => {
        expect(scanned(text)).toEqual(oracle(text));
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
    expect(() => scanJsonObject(Buffer.from(text))).toThrow(reason);
  });

  it('keeps the last value of a repeated name, like JSON.parse', () => {
    const buf = Buffer.from('{"version":3, "deployment": {"version": 9}, "version" : 4 }');
    const version = scanJsonObject(buf).get('version')!;
    expect(buf.toString('utf8', version.start, version.end)).toBe('4');
  });
});
