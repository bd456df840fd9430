/** The bytes of JSON text by name, for the scanners that walk JSON as bytes instead of parsing it. */
export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
export const UPPER_E = 0x45;
export const OPEN_ARRAY = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_ARRAY = 0x5d;
export const LOWER_E = 0x65;
export const LOWER_U = 0x75;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;

/**
 * Whether four bytes of a JSON string, read as one little-endian word, may hold a quote, a backslash or a control
 * character. Bit tests over the whole word: they may flag a plain word (the caller then reads it byte by byte) but
 * never miss a special byte, so a string's plain text is skipped four bytes at a time.
 */
export function mayHoldSpecialStringByte(word: number): boolean {
  const quote = word ^ 0x22222222;
  const backslash = word ^ 0x5c5c5c5c;
  const special = ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((word - 0x20202020) & ~word);
  return (special & 0x80808080) !== 0;
}
