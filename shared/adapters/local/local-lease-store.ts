import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, LeaseHeldError, type LeaseHolder } from '../../core/errors.js';
import { formatStackRef, type StackRef } from '../../core/names.js';
import type { AcquireRequest, LeaseGrant, LeaseStore, TokenRef } from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';

interface StoredLease extends LeaseHolder {
  tokenHash: string;
  /** `org/project/stack` at grant time, when the caller gave it. */
  stackName?: string;
  /** State saves counted by `nextSave`. */
  saves?: number;
}

interface DryToken {
  tokenHash: string;
  expiresAt: number;
  stackName?: string;
}

/** One file per stack: the exclusive lease (if any) and the live dry-run tokens, changed only under the stack lock. */
interface LeaseFile {
  lease?: StoredLease;
  dry: Record<string, DryToken>;
}

/** SHA-256 hex of a token: the only form in which tokens are stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Leases at `leases/<stackId>.json`; every read-modify-write holds the lock `lease-<stackId>`. */
export class LocalLeaseStore implements LeaseStore {
  constructor(
    private readonly dir: DataDir,
    private readonly now: () => number,
  ) {}

  async acquire(request: AcquireRequest): Promise<LeaseGrant> {
    const updateId = safeSegment(request.updateId, 'update id');
    // A refusal needs no lock: files are replaced atomically, so a live lease read here was live when we asked.
    // Only a grant queues for the lock, and it decides again under it.
    const seen = await this.read(safeSegment(request.stackId, 'stack id'));
    if (seen.lease && seen.lease.expiresAt >= this.now()) throw new LeaseHeldError(holderOf(seen.lease));
    return this.change(request.stackId, (file, now) => {
      if (file.lease && file.lease.expiresAt >= now) throw new LeaseHeldError(holderOf(file.lease));
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now + request.durationMs;
      const tokenHash = hashToken(token);
      file.lease = { updateId, holder: request.holder, startedAt: now, expiresAt, tokenHash, saves: 0 };
      if (request.stack) file.lease.stackName = formatStackRef(request.stack);
      return { token, expiresAt };
    });
  }

  async issue(request: AcquireRequest): Promise<LeaseGrant> {
    const updateId = safeSegment(request.updateId, 'update id');
    return this.change(request.stackId, (file, now) => {
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now + request.durationMs;
      file.dry[updateId] = { tokenHash: hashToken(token), expiresAt };
      if (request.stack) file.dry[updateId].stackName = formatStackRef(request.stack);
      return { token, expiresAt };
    });
  }

  async validate(ref: TokenRef): Promise<void> {
    const file = await this.read(ref.stackId);
    this.live(file, ref, this.now());
  }

  async nextSave(ref: TokenRef): Promise<number> {
    return this.change(ref.stackId, (file, now) => {
      const entry = this.live(file, ref, now);
      if (entry !== file.lease) throw new ForbiddenError('Dry runs save no state: this token belongs to a dry run.');
      file.lease.saves = (file.lease.saves ?? 0) + 1;
      return file.lease.saves;
    });
  }

  async renew(ref: TokenRef, durationMs: number): Promise<LeaseGrant> {
    return this.change(ref.stackId, (file, now) => {
      const entry = this.live(file, ref, now);
      entry.expiresAt = now + durationMs;
      return { token: ref.token, expiresAt: entry.expiresAt };
    });
  }

  async release(ref: TokenRef): Promise<void> {
    await this.change(ref.stackId, (file, now) => {
      this.live(file, ref, now);
      if (file.lease?.updateId === ref.updateId) delete file.lease;
      delete file.dry[ref.updateId];
    });
  }

  async revoke(stackId: string, updateId: string): Promise<void> {
    await this.change(stackId, (file) => {
      if (file.lease?.updateId === updateId) delete file.lease;
      delete file.dry[updateId];
    });
  }

  async current(stackId: string): Promise<LeaseHolder | undefined> {
    const file = await this.read(stackId);
    return file.lease && file.lease.expiresAt >= this.now() ? holderOf(file.lease) : undefined;
  }

  /** The live entry for exactly this stack, update and token, or `ForbiddenError`. */
  private live(file: LeaseFile, ref: TokenRef, now: number): StoredLease | DryToken {
    const hash = typeof ref.token === 'string' && ref.token !== '' ? hashToken(ref.token) : '';
    const lease = file.lease?.updateId === ref.updateId ? file.lease : undefined;
    const dry = Object.hasOwn(file.dry, ref.updateId) ? file.dry[ref.updateId] : undefined;
    const name = nameOf(ref.stack);
    for (const entry of [lease, dry]) {
      const underName = name === undefined || entry?.stackName === name;
      if (entry && entry.expiresAt >= now && sameHash(entry.tokenHash, hash) && underName) return entry;
    }
    throw new ForbiddenError('The update token is not valid for this update (completed, cancelled or expired).');
  }

  private async read(stackId: string): Promise<LeaseFile> {
    return (await this.dir.readJson<LeaseFile>(this.path(stackId))) ?? { dry: {} };
  }

  private async change<T>(stackId: string, fn: (file: LeaseFile, now: number) => T): Promise<T> {
    const path = this.path(stackId);
    return this.dir.withLock(`lease-${stackId}`, async () => {
      const file = await this.read(stackId);
      const now = this.now();
      const result = fn(file, now);
      for (const [updateId, entry] of Object.entries(file.dry)) {
        if (entry.expiresAt < now) delete file.dry[updateId];
      }
      await this.dir.writeJson(path, file);
      return result;
    });
  }

  private path(stackId: string): string {
    return this.dir.path('leases', `${safeSegment(stackId, 'stack id')}.json`);
  }
}

function nameOf(stack: StackRef | undefined): string | undefined {
  return stack === undefined ? undefined : formatStackRef(stack);
}

function holderOf(lease: StoredLease): LeaseHolder {
  return { updateId: lease.updateId, holder: lease.holder, startedAt: lease.startedAt, expiresAt: lease.expiresAt };
}
