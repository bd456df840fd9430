import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { InvalidInputError, TooLargeError } from '../errors.js';

/** Largest pack tarball the service stores (compressed); a pack is code and a package.json, not its node_modules. */
export const MAX_PACK_BYTES = 4 * 1024 * 1024;
/** Largest it may inflate to, so a compression bomb costs at most this much memory. */
const MAX_PACK_INFLATED_BYTES = 32 * 1024 * 1024;
const MAX_ENTRIES = 10_000;
/** Every file sits in `package/`, as `npm pack` and Pulumi's own archiver write it (policypack.go, `packageDir`). */
const PACKAGE_DIR = 'package/';
const MANIFEST = `${PACKAGE_DIR}PulumiPolicy.yaml`;

/** What the service keeps of a checked tarball. */
export interface CheckedTarball {
  size: number;
  sha256: string;
}

function refuse(what: string): InvalidInputError {
  return new InvalidInputError(`The policy pack tarball ${what}. Publish the pack folder with 'stackyard policy publish' (npm pack).`);
}

/** A path that stays inside `package/` once extracted: relative, no `..` segment, no drive or backslash tricks. */
function staysInside(path: string): boolean {
  if (!path.startsWith(PACKAGE_DIR) || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((segment) => segment !== '..');
}

function entryProblem(entry: ReadEntry): string | undefined {
  const path = entry.path;
  if (!staysInside(path)) return `has '${path.slice(0, 120)}', which is outside its package/ folder`;
  if (entry.type === 'SymbolicLink' || entry.type === 'Link') return `has a link '${path.slice(0, 120)}'; a pack holds files and folders only`;
  if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'Directory' && entry.type !== 'ContiguousFile') {
    return `has '${path.slice(0, 120)}' of type ${entry.type}; a pack holds files and folders only`;
  }
  return undefined;
}

/**
 * Checks a pack tarball before it is published: at most MAX_PACK_BYTES, a gzip'd tar whose every entry is a file
 * or folder under `package/`, with `package/PulumiPolicy.yaml`. Throws `InvalidInputError` (or `TooLargeError`)
 * saying what to fix.
 */
export function checkPackTarball(tarball: Uint8Array): CheckedTarball {
  if (tarball.byteLength > MAX_PACK_BYTES) {
    throw new TooLargeError(`The policy pack tarball is ${tarball.byteLength} bytes, over the ${MAX_PACK_BYTES} a pack may be: leave node_modules and build output out of it.`);
  }
  let tar: Buffer;
  try {
    tar = gunzipSync(tarball, { maxOutputLength: MAX_PACK_INFLATED_BYTES });
  } catch {
    throw refuse('is not a gzip-compressed tar file, or inflates past 32 MB');
  }
  let problem: string | undefined;
  let entries = 0;
  let manifest = false;
  const parser = new Parser({
    strict: true,
    onReadEntry(entry: ReadEntry) {
      entries++;
      problem ??= entryProblem(entry);
      if (entry.path === MANIFEST && entry.type === 'File') manifest = true;
      entry.resume();
    },
  });
  parser.on('error', (error: Error) => (problem ??= `cannot be read as tar (${error.message.slice(0, 120)})`));
  parser.on('warn', (_code: string, message: string | Error) => (problem ??= `cannot be read as tar (${String(message).slice(0, 120)})`));
  parser.end(tar);
  if (!problem && entries > MAX_ENTRIES) problem = `has ${entries} entries, over the ${MAX_ENTRIES} a pack may have`;
  if (!problem && entries === 0) problem = 'is empty';
  if (!problem && !manifest) problem = 'has no package/PulumiPolicy.yaml: a policy pack folder needs one (runtime: nodejs)';
  if (problem) throw refuse(problem);
  return { size: tarball.byteLength, sha256: createHash('sha256').update(tarball).digest('hex') };
}
