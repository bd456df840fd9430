/**
 * Parsed project files, cached by the SHA-256 of their text under `$STACKYARD_HOME/cache/yaml/`. A Pulumi.yaml read
 * again unchanged is not parsed again, so a command that only needs the project (`stack ls`, `stack select`, ...)
 * starts without loading the YAML parser, the largest module on its path.
 *
 * The key is the whole text, so a hit is exactly what parsing would give; only values that JSON carries unchanged are
 * stored (not `.inf` or `.nan`, for example), a text the parser warns about is never stored (so its warning is printed
 * on every read, as without the cache), and a cache file that cannot be read back is a miss. Writing is best
 * effort and never creates `$STACKYARD_HOME` itself.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackyardHome } from '../credentials.js';
import { sha256Hex } from './digests.js';

interface CacheEntry {
  value: unknown;
}

/** The YAML document `text` parsed as the `yaml` package's `parse` does (and throwing what it throws). */
export async function parseYamlCached(text: string, env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const home = stackyardHome(env);
  const file = join(home, 'cache', 'yaml', `${sha256Hex(text)}.json`);
  const cached = readEntry(file);
  if (cached) return cached.value;
  // Only a miss needs the parser and node:util (whose ES-module facade loads worker_threads and more on Node 22).
  const [{ parse, warnsOn }, { isDeepStrictEqual }] = await Promise.all([import('./yaml-parser.js'), import('node:util')]);
  const value: unknown = parse(text);
  const json = JSON.stringify({ value } satisfies CacheEntry);
  if (isDeepStrictEqual((JSON.parse(json) as CacheEntry).value, value) && !warnsOn(text)) await writeEntry(home, file, json);
  return value;
}

/** Synchronously, as readCredentials (credentials.ts) explains. */
function readEntry(file: string): CacheEntry | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return entry !== null && typeof entry === 'object' && 'value' in entry ? (entry as CacheEntry) : undefined;
  } catch {
    return undefined;
  }
}

async function writeEntry(home: string, file: string, json: string): Promise<void> {
  try {
    await fs.access(home);
    await fs.mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(temp, json, { mode: 0o600 });
    await fs.rename(temp, file);
  } catch {
    // A cache that cannot be written only means the next run parses again.
  }
}
