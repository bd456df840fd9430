import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactStringSet } from './compact-string-set.js';

describe('CompactStringSet', () => {
  it('answers exactly as a Set<string> does (any strings, lone surrogates included)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: fc.constantFrom('a', ':', '\uD800', '\uDC00', 'é', '\uFFFD'), maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), text), { maxLength: 200 }), (operations) => {
        const compact = new CompactStringSet();
        const reference = new Set<string>();
        for (const [add, value] of operations) {
          if (add) {
            compact.add(value);
            reference.add(value);
          } else {
            expect(compact.has(value)).toBe(reference.has(value));
          }
        }
        for (const [, value] of operations) expect(compact.has(value)).toBe(reference.has(value));
      }),
      { numRuns: 500, seed: 20 },
    );
  });

  it('keeps every one of many long URNs as it grows, and no URN it was not given', () => {
    const urn = (n: number) => `urn:pulumi:prod::bench::aws:s3/bucket:Bucket::bucket-${n}-${'x'.repeat(n % 97)}`;
    const set = new CompactStringSet();

    for (let n = 0; n < 50_000; n += 2) set.add(urn(n));

    for (let n = 0; n < 50_000; n++) expect(set.has(urn(n))).toBe(n % 2 === 0);
  });
});
