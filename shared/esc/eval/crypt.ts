import { crc32 } from 'node:zlib';

const ENVELOPE_MAGIC = 'escx';
const ENVELOPE_VERSION = 1;

/**
 * Strict standard base64 as Go's StdEncoding reads it: the decoded bytes, or Go's error text naming the first bad
 * input byte.
 */
export function decodeBase64(text: string): Uint8Array | string {
  const bad = /[^A-Za-z0-9+/=\r\n]/.exec(text);
  const compact = text.replace(/[\r\n]/g, '');
  if (bad !== null) return `illegal base64 data at input byte ${bad.index}`;
  const padding = compact.indexOf('=');
  const valid = compact.length % 4 === 0 && (padding === -1 || /^={1,2}$/.test(compact.slice(padding)) && padding >= compact.length - 2);
  if (!valid) return `illegal base64 data at input byte ${padding === -1 ? compact.length - (compact.length % 4) : padding}`;
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/** Opens ESC's ciphertext envelope (`escx`, version 1, payload, CRC-32); an error text when it is not one. */
export function decodeCiphertext(encoded: string): Uint8Array | string {
  const bin = decodeBase64(encoded);
  if (typeof bin === 'string') return bin;
  if (bin.length < 16) return 'EOF';
  if (Buffer.from(bin.subarray(0, 4)).toString('latin1') !== ENVELOPE_MAGIC) return 'invalid header';
  const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  if (crc32(bin.subarray(0, bin.length - 4)) !== view.getUint32(bin.length - 4)) return 'invalid checksum';
  if (view.getUint32(4) !== ENVELOPE_VERSION) return 'unsupported version';
  return bin.subarray(8, bin.length - 4);
}

/** Wraps ciphertext in ESC's envelope and base64-encodes it, as a definition stores it. */
export function encodeCiphertext(ciphertext: Uint8Array): string {
  const body = Buffer.concat([Buffer.from(ENVELOPE_MAGIC, 'latin1'), Buffer.from([0, 0, 0, ENVELOPE_VERSION]), Buffer.from(ciphertext)]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(body));
  return Buffer.concat([body, checksum]).toString('base64');
}
