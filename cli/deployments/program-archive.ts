/**
 * Packs a program folder for `stackyard deployment run --source <dir>`: every file under it but `.git`,
 * `node_modules` (the runner's `npm ci` installs dependencies) and what its `.gitignore` ignores, as a gzip'd
 * tarball of at most MAX_SOURCE_ARCHIVE_BYTES. Bad input — no such folder, no Pulumi.yaml, a link, too big — is a
 * `UserError` before anything is uploaded.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { create } from 'tar';
import { MAX_SOURCE_ARCHIVE_BYTES } from '../../shared/core/deployments/source-archives.js';
import { UserError } from '../output/errors.js';
import { ignoreRules, type IgnoreTest } from './ignore-rules.js';

/** A packed program: the archive, its SHA-256 (hex) and how many files it holds. */
export interface ProgramArchive {
  archive: Buffer;
  sha256: string;
  files: number;
}

/** Never packed, whatever `.gitignore` says. */
const ALWAYS_LEFT_OUT = new Set(['.git', 'node_modules']);
const PROJECT_FILES = ['Pulumi.yaml', 'Pulumi.yml'];

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** Packs `dir` (relative to the working directory). */
export async function packProgram(dir: string): Promise<ProgramArchive> {
  const root = resolve(dir);
  if (!existsSync(root)) throw new UserError(`--source ${dir}: no such folder`, 'Pass the folder that holds the program and its Pulumi.yaml.');
  if (!statSync(root).isDirectory()) throw new UserError(`--source ${dir} is not a folder`, 'Pass the folder that holds the program and its Pulumi.yaml.');
  if (!PROJECT_FILES.some((name) => existsSync(join(root, name)))) {
    throw new UserError(`--source ${dir} has no Pulumi.yaml`, 'Pass the folder of a Pulumi project (`stackyard new` makes one).');
  }
  const gitignore = join(root, '.gitignore');
  const files = listFiles(root, '', ignoreRules(existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : ''));
  const chunks: Buffer[] = [];
  let size = 0;
  // portable: no owner names, ids or modes beyond what the runner needs; the list is sorted, so a folder packs the same.
  for await (const chunk of create({ gzip: true, cwd: root, portable: true, noDirRecurse: true }, files)) {
    const bytes = Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size > MAX_SOURCE_ARCHIVE_BYTES) {
      throw new UserError(
        `the program archive of ${dir} is over the ${megabytes(MAX_SOURCE_ARCHIVE_BYTES)} a run's source may be (${files.length} files); nothing was uploaded`,
        'Leave dependencies and build outputs out: node_modules and .git are never packed; list the rest in the folder\'s .gitignore.',
      );
    }
    chunks.push(bytes);
  }
  const archive = Buffer.concat(chunks);
  return { archive, sha256: createHash('sha256').update(archive).digest('hex'), files: files.length };
}

/** The files under `root/prefix` that are packed, sorted, as paths relative to `root`. */
function listFiles(root: string, prefix: string, ignored: IgnoreTest): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const path = prefix ? `${prefix}/${name}` : name;
    const stat = lstatSync(join(root, path));
    if (ALWAYS_LEFT_OUT.has(name) || ignored(path, stat.isDirectory())) continue;
    if (stat.isDirectory()) files.push(...listFiles(root, path, ignored));
    else if (stat.isFile()) files.push(path);
    else {
      throw new UserError(
        `--source: ${path} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; the program archive holds files and folders only`,
        'Replace it with a copy, or leave it out with the folder\'s .gitignore.',
      );
    }
  }
  return files;
}
