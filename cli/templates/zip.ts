/**
 * Extracts a ZIP archive (stored or deflated entries), the format Pulumi downloads templates in. Entry names that
 * would land outside the target folder (absolute, or climbing with `..`) are refused, as Pulumi's
 * sanitizeArchivePath refuses them.
 */
import { promises as fs } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { UserError } from '../output/errors.js';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localHeader: number;
  mode: number;
}

function bad(why: string): UserError {
  return new UserError(`the template archive is not a valid ZIP file: ${why}`, 'Check the URL names a .zip archive of a template.');
}

/** The central directory's entries (found from the end record, which may be followed by a comment). */
function entries(zip: Buffer): Entry[] {
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw bad('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const found: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw bad('a broken central directory');
    const nameLength = zip.readUInt16LE(at + 28);
    found.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      localHeader: zip.readUInt32LE(at + 42),
      mode: zip.readUInt32LE(at + 38) >>> 16,
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return found;
}

function contents(zip: Buffer, entry: Entry): Buffer {
  const at = entry.localHeader;
  if (zip.readUInt32LE(at) !== LOCAL_FILE_HEADER) throw bad(`no local header for ${entry.name}`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data);
  throw bad(`${entry.name} uses compression method ${entry.method} (only stored and deflated entries are read)`);
}

/** Writes every entry of `zip` under `dir`. */
export async function extractZip(zip: Buffer, dir: string): Promise<void> {
  const root = resolve(dir);
  for (const entry of entries(zip)) {
    const target = resolve(root, entry.name);
    if (target !== root && !target.startsWith(root + sep)) throw bad(`${entry.name} would be written outside the template folder`);
    if (entry.name.endsWith('/')) {
      await fs.mkdir(target, { recursive: true });
      continue;
    }
    await fs.mkdir(dirname(target), { recursive: true });
    // Keeps an executable bit the archive recorded; every file stays readable and writable by its owner.
    await fs.writeFile(target, contents(zip, entry), { mode: ((entry.mode & 0o777) || 0o644) | 0o600 });
  }
}
