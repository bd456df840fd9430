import { describe, expect, it } from 'vitest';
import { mayHoldSpecialStringByte } from './json-bytes.js';

const wordOf = (bytes: number[]) => Buffer.from(bytes).readUInt32LE(0);
const isSpecial = (byte: number) => byte === 0x22 || byte === 0x5c || byte < 0x20;

describe('mayHoldSpecialStringByte', () => {
  it('flags every word with a quote, a backslash or a control character in any of its four places', () => {
    for (let byte = 0; byte < 256; byte++) {
      if (!isSpecial(byte)) continue;
      for (let place = 0; place < 4; place++) {
        const bytes = [0x61, 0x62, 0x63, 0x64];
        bytes[place] = byte;
        expect(mayHoldSpecialStringByte(wordOf(bytes)), `byte ${byte} at ${place}`).toBe(true);
      }
    }
  });

  it('passes plain text, UTF-8 included, four bytes at a time', () => {
    for (const text of ['abcd', 'urn:', '::pu', 'é日', ' ~!#', '0123']) {
      const bytes = [...Buffer.from(text)].slice(0, 4);
      expect(bytes.some(isSpecial)).toBe(false);
      expect(mayHoldSpecialStringByte(wordOf(bytes)), text).toBe(false);
    }
  });
});
