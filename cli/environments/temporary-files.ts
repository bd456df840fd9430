/**
 * The temporary files an environment's `files` ask for, as ESC writes them (`esc-*` under the system's temporary
 * folder, readable by the owner only), and their removal.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Writes `content` to a new temporary file (mode 0600) and returns its path. */
export async function temporaryFile(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'esc-'));
  const path = join(dir, 'file');
  await writeFile(path, content, { mode: 0o600 });
  return path;
}

/** Removes files `temporaryFile` wrote (with their folders). */
export async function removeTemporaryFiles(paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(dirname(path), { recursive: true, force: true })));
}

/**
 * Removes the files when this process exits, however it exits short of being killed: for files that must outlive
 * the command's own code (a stack's program and providers run until the engine is done). Paths added to the list
 * later are removed too.
 */
export function removeTemporaryFilesOnExit(paths: string[]): void {
  process.once('exit', () => {
    for (const path of paths) rmSync(dirname(path), { recursive: true, force: true });
  });
}
