/**
 * The install lock: an exclusive `flock` on `<plugin folder>.lock`, the same lock the `pulumi` CLI takes
 * (`fsutil.FileMutex`), so a `stackyard` and a `pulumi` installing one plugin at once take turns. Node has no
 * flock, so util-linux's `flock(1)` holds it for us: it locks, prints a line, and keeps the lock until our end of
 * its stdin closes, which also happens when this process dies, so a crash never leaves the lock held.
 * Where `flock(1)` is missing (macOS), an exclusive `mkdir` of `<plugin folder>.lock.d` stands in; it excludes
 * other stackyard processes only.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { findOnPath } from './resolve.js';

/** A `mkdir` lock older than this is taken to belong to a process that died. */
const STALE_DIR_LOCK_MS = 10 * 60_000;

function flockBinary(env: NodeJS.ProcessEnv): string | undefined {
  return findOnPath('flock', { PATH: `${env.PATH ?? ''}:/usr/bin:/bin` });
}

async function withFlock<T>(flock: string, lockFile: string, fn: () => Promise<T>): Promise<T> {
  const child = spawn(flock, ['--exclusive', lockFile, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`could not lock ${lockFile}: ${err.message}`)));
    child.stdout.setEncoding('utf8').on('data', (t: string) => t.includes('locked') && resolve());
    void exited.then((code) => reject(new Error(`could not lock ${lockFile} (flock exited with ${code}): ${stderr.trim()}`)));
  });
  try {
    return await fn();
  } finally {
    child.stdin.end();
    await exited;
  }
}

async function withDirLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  const dir = `${lockFile}.d`;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      mkdirSync(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_DIR_LOCK_MS) rmSync(dir, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, delay));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` while holding the install lock `lockFile` (waiting for it as long as another install holds it). */
export function withInstallLock<T>(lockFile: string, env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  const flock = flockBinary(env);
  return flock ? withFlock(flock, lockFile, fn) : withDirLock(lockFile, fn);
}
