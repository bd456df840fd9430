/**
 * SHA-1 and SHA-256 of a string's UTF-8 bytes, in lowercase hex: exactly node:crypto's `createHash(…).update(text)
 * .digest('hex')`, computed in JavaScript (@noble/hashes). Reading a project only needs these two small digests (the
 * workspace file's name, the parsed-YAML cache key), and node:crypto is about 25 internal modules for Node to load on
 * every start of a command that otherwise needs none of it, like `stack ls`.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function sha1Hex(text: string): string {
  return bytesToHex(sha1(utf8ToBytes(text)));
}

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
