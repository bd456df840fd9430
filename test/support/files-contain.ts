import { promises as fs } from 'node:fs';
import { join } from 'node:path';

/** Whether any file under `dir` (recursively) contains `needle`: how tests prove a secret is nowhere at rest. */
export async function filesContain(dir: string, needle: string): Promise<boolean> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && (await fs.readFile(join(entry.parentPath, entry.name))).includes(needle)) return true;
  }
  return false;
}
