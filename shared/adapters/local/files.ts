import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';
import { holderIsGone, lockOwner, type LockRecord } from './lock-owner.js';

/**
 * Files and locks of one data folder. Temp files live in `tmp/` on the same file system, so `link` and `rename`
 * are atomic.
 */
export class DataDir {
  /** `lockWaitMs`: how long a caller waits for a lock before it gets a 503 (default 60 s). */
  constructor(
    readonly root: string,
    private readonly options: { lockWaitMs?: number } = {},
  ) {}

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
      return await linkUnlessTaken(temp, target);
    } finally {
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
    const text = await this.shared(`file:${target}`, () =>
      fs.readFile(target, 'utf8').catch((error: unknown) => (code(error) === 'ENOENT' ? undefined : Promise.reject(error))),
    );
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /**
   * Runs `read` once for every caller that asks for `key` in the same turn of the event loop: fifty requests on one
   * stack then queue one read of its files on libuv's four threads instead of fifty. A caller joins only a read that
   * has not started yet, so what it gets was read after it asked, as fresh as a read of its own.
   */
  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const queued = this.queuedReads.get(key);
    if (queued) return queued as Promise<T>;
    const result = new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.queuedReads.delete(key);
        read().then(resolve, reject);
      });
    });
    this.queuedReads.set(key, result);
    return result;
  }

  private readonly queuedReads = new Map<string, Promise<unknown>>();

  async mustReadJson<T>(target: string, what: string): Promise<T> {
    const value = await this.readJson<T>(target);
    if (value === undefined) throw new NotFoundError(`${what} does not exist.`);
    return value;
  }

  /** The names in `dir`, sorted (`[]` when it does not exist); shared like `readJson`, each caller gets its own copy. */
  async list(dir: string): Promise<string[]> {
    const names = await this.shared(`dir:${dir}`, () =>
      fs.readdir(dir).then(
        (entries) => entries.sort(),
        (error: unknown) => (code(error) === 'ENOENT' ? [] : Promise.reject(error)),
      ),
    );
    return [...names];
  }

  async remove(target: string): Promise<void> {
    await fs.rm(target, { recursive: true, force: true });
  }

  /**
   * Runs `fn` holding the named lock. Locks are files created exclusively, recording their holder (lock-owner.ts)
   * and expiry; a stale lock (expired, or its holder certainly gone) is broken by renaming it to a unique name
   * first, so two breakers cannot both win.
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
    const deadline = Date.now() + (this.options.lockWaitMs ?? LOCK_WAIT_MS);
    let delay = 1;
    for (;;) {
      if (await this.createLockFile(lockPath, { ...lockOwner(), expiresAt: Date.now() + LOCK_TTL_MS, nonce })) break;
      await breakIfStale(lockPath);
      if (Date.now() > deadline) {
        throw new UnavailableError(`Timed out waiting for the storage lock '${name}', which another request holds; retry shortly.`);
      }
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

  /**
   * Publishes a complete lock file or nothing: the record is written to a temp file and hard-linked into place, so a
   * process killed at any point leaves no empty or half-written lock (which only its age could judge). Not fsynced:
   * after a crash every lock is stale anyway.
   */
  private async createLockFile(lockPath: string, record: LockRecord): Promise<boolean> {
    const temp = this.tempPath();
    await fs.writeFile(temp, JSON.stringify(record), { flag: 'wx', mode: 0o600 });
    return linkUnlessTaken(temp, lockPath);
  }
}

/** Links `temp` at `target` unless something is already there (then false); `temp` is removed either way. */
async function linkUnlessTaken(temp: string, target: string): Promise<boolean> {
  try {
    await fs.link(temp, target);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

const LOCK_TTL_MS = 30_000;
const LOCK_WAIT_MS = 60_000;
/**
 * Lock files are published complete (createLockFile), so an empty or unreadable one was left by an older version
 * killed between creating and writing it; one that old is given up on after this long, not after the full TTL.
 */
const TORN_LOCK_GRACE_MS = 2_000;

type LockInfo = Partial<LockRecord> & Pick<LockRecord, 'expiresAt' | 'nonce'>;

async function readLock(lockPath: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await fs.readFile(lockPath, 'utf8')) as LockInfo;
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    const stat = await fs.stat(lockPath).catch(() => undefined);
    return stat ? { expiresAt: stat.mtimeMs + TORN_LOCK_GRACE_MS, nonce: `mtime-${stat.mtimeMs}` } : undefined;
  }
}

function isStale(info: LockInfo | undefined): boolean {
  if (!info) return false;
  return info.expiresAt < Date.now() || holderIsGone(info);
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
