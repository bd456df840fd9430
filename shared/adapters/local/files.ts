import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';

/**
 * Files and locks of one data folder. Temp files live in `tmp/` on the same file system, so `link` and `rename`
 * are atomic.
 */
export class DataDir {
  constructor(readonly root: string) {}

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  tempPath(): string {
    return this.path('tmp', `${process.pid}-${randomBytes(8).toString('hex')}`);
  }

  /** Writes a file and fsyncs it, so a later link/rename publishes complete content only. */
  async writeTemp(data: Uint8Array | string): Promise<string> {
    const temp = this.tempPath();
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  /** Replaces `target` atomically (readers see the old or the new content, never a mix). */
  async writeAtomic(target: string, data: Uint8Array | string): Promise<void> {
    const temp = await this.writeTemp(data);
    await fs.mkdir(dirname(target), { recursive: true });
    await fs.rename(temp, target);
    await syncDir(dirname(target));
  }

  /** Publishes `temp` at `target` only if nothing is there yet; returns false (and drops temp) if taken. */
  async publishExclusive(temp: string, target: string): Promise<boolean> {
    await fs.mkdir(dirname(target), { recursive: true });
    try {
      await fs.link(temp, target);
      return true;
    } catch (error) {
      if (code(error) === 'EEXIST') return false;
      throw error;
    } finally {
      await fs.unlink(temp).catch(() => undefined);
      await syncDir(dirname(target));
    }
  }

  /** Creates a JSON file if absent; `ConflictError` if it exists. */
  async createJson(target: string, value: unknown, what: string): Promise<void> {
    const temp = await this.writeTemp(JSON.stringify(value));
    if (!(await this.publishExclusive(temp, target))) throw new ConflictError(`${what} already exists.`);
  }

  async writeJson(target: string, value: unknown): Promise<void> {
    await this.writeAtomic(target, JSON.stringify(value));
  }

  /** Reads JSON; `undefined` when the file does not exist. Each caller gets its own parsed copy. */
  async readJson<T>(target: string): Promise<T | undefined> {
    const text = await this.readShared(target);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /**
   * The text of `target`, read once for every caller that asks for it in the same turn of the event loop: fifty
   * requests on one stack then queue one read of its files on libuv's four threads instead of fifty. A caller joins
   * only a read that has not started yet, so what it gets was read after it asked, as fresh as a read of its own.
   */
  private readShared(target: string): Promise<string | undefined> {
    const queued = this.queuedReads.get(target);
    if (queued) return queued;
    const read = new Promise<string | undefined>((resolve, reject) => {
      setImmediate(() => {
        this.queuedReads.delete(target);
        fs.readFile(target, 'utf8').then(resolve, (error: unknown) => (code(error) === 'ENOENT' ? resolve(undefined) : reject(error)));
      });
    });
    this.queuedReads.set(target, read);
    return read;
  }

  private readonly queuedReads = new Map<string, Promise<string | undefined>>();

  async mustReadJson<T>(target: string, what: string): Promise<T> {
    const value = await this.readJson<T>(target);
    if (value === undefined) throw new NotFoundError(`${what} does not exist.`);
    return value;
  }

  async list(dir: string): Promise<string[]> {
    try {
      return (await fs.readdir(dir)).sort();
    } catch (error) {
      if (code(error) === 'ENOENT') return [];
      throw error;
    }
  }

  async remove(target: string): Promise<void> {
    await fs.rm(target, { recursive: true, force: true });
  }

  /**
   * Runs `fn` holding the named lock. Locks are `O_EXCL` files recording pid and expiry; a stale lock (expired, or
   * its pid gone on this host) is broken by renaming it to a unique name first, so two breakers cannot both win.
   * Lock expiry uses the real clock: the injected clock drives domain time only.
   */
  async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    // Callers in this process queue for the lock here, in order, and each is woken the moment the one before it is
    // done; only the head of the queue polls the lock file, which other processes may hold.
    const previous = this.lockQueues.get(name) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = previous.then(() => mine);
    this.lockQueues.set(name, tail);
    await previous;
    try {
      return await this.withFileLock(name, fn);
    } finally {
      done();
      if (this.lockQueues.get(name) === tail) this.lockQueues.delete(name);
    }
  }

  private readonly lockQueues = new Map<string, Promise<void>>();

  private async withFileLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const lockPath = this.path('locks', `${name}.lock`);
    const nonce = randomBytes(12).toString('hex');
    const deadline = Date.now() + LOCK_WAIT_MS;
    let delay = 1;
    for (;;) {
      try {
        const handle = await fs.open(lockPath, 'wx', 0o600);
        try {
          await handle.writeFile(JSON.stringify({ pid: process.pid, expiresAt: Date.now() + LOCK_TTL_MS, nonce }));
        } finally {
          await handle.close();
        }
        break;
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      await breakIfStale(lockPath);
      if (Date.now() > deadline) throw new UnavailableError(`Timed out waiting for the storage lock '${name}'.`);
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 20);
    }
    try {
      return await fn();
    } finally {
      const held = await readLock(lockPath);
      if (held?.nonce === nonce) await fs.unlink(lockPath).catch(() => undefined);
    }
  }
}

const LOCK_TTL_MS = 30_000;
const LOCK_WAIT_MS = 60_000;

interface LockInfo {
  pid: number;
  expiresAt: number;
  nonce: string;
}

async function readLock(lockPath: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await fs.readFile(lockPath, 'utf8')) as LockInfo;
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    // Empty or torn: its creator is still writing it, or died doing so; judge it by age alone.
    const stat = await fs.stat(lockPath).catch(() => undefined);
    return stat ? { pid: 0, expiresAt: stat.mtimeMs + LOCK_TTL_MS, nonce: `mtime-${stat.mtimeMs}` } : undefined;
  }
}

function isStale(info: LockInfo | undefined): boolean {
  if (!info) return false;
  if (info.expiresAt < Date.now()) return true;
  return info.pid !== 0 && processGone(info.pid);
}

/** True when no process `pid` runs on this host (a permission error means one does). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return code(error) === 'ESRCH';
  }
}

async function breakIfStale(lockPath: string): Promise<void> {
  const info = await readLock(lockPath);
  if (!isStale(info)) return;
  const aside = `${lockPath}.stale-${randomBytes(8).toString('hex')}`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return;
  }
  // Another breaker may have won between our read and rename, and a new holder taken the lock: put a live one back.
  const moved = await readLock(aside);
  if (moved && moved.nonce !== info!.nonce && !isStale(moved)) {
    await fs.link(aside, lockPath).catch(() => undefined);
  }
  await fs.unlink(aside).catch(() => undefined);
}

export async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some file systems cannot fsync directories; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}

export function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

const SAFE_SEGMENT = /^[A-Za-z0-9._-]{1,200}$/;

/** A single path segment (ids, logins): safe characters, never `.` or `..`. */
export function safeSegment(value: unknown, what: string): string {
  if (typeof value !== 'string' || !SAFE_SEGMENT.test(value) || value === '.' || value === '..') {
    throw new InvalidInputError(
      `Invalid ${what} '${String(value).slice(0, 80)}': use letters, digits, '.', '_' or '-'.`,
    );
  }
  return value;
}
