import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha1Hex, sha256Hex } from './digests.js';

const nodeDigest = (algorithm: string, text: string) => createHash(algorithm).update(text, 'utf8').digest('hex');

/** Around SHA's 64-byte blocks and its 8-byte length field, where padding goes wrong if anything does. */
const BLOCK_EDGES = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000].map((n) => 'x'.repeat(n));

describe('digests', () => {
  it('are node:crypto\'s SHA-1 and SHA-256 at the block edges and for a project path', () => {
    // Arrange
    const texts = [...BLOCK_EDGES, '/home/me/src/app/Pulumi.yaml', 'name: app\nruntime: nodejs\n'];

    // Act / Assert
    for (const text of texts) {
      expect(sha1Hex(text)).toBe(nodeDigest('sha1', text));
      expect(sha256Hex(text)).toBe(nodeDigest('sha256', text));
    }
  });

  it('hash any string\'s UTF-8 bytes as node:crypto does, lone surrogates included', () => {
    // Arrange: every code point, and the characters that take two to four UTF-8 bytes or cannot be encoded alone
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\uD800', '\uDC00', '\uFFFD', '\0'), maxLength: 80 }),
    );

    // Act / Assert
    fc.assert(
      fc.property(text, (t) => {
        expect(sha1Hex(t)).toBe(nodeDigest('sha1', t));
        expect(sha256Hex(t)).toBe(nodeDigest('sha256', t));
      }),
      { numRuns: 500 },
    );
  });
});
