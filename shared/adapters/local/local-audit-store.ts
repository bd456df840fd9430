import { InvalidInputError } from '../../core/errors.js';
import {
  checkAuditLimit as checkLimit,
  mergeAuditPages,
  type AuditEntry,
  type AuditIntent,
  type AuditPage,
  type AuditQuery,
  type AuditStore,
} from '../../ports/audit-store.js';
import { safeSegment, type DataDir } from './files.js';
import { holderIsGone, lockOwner, type LockOwner } from './lock-owner.js';

const SITE = '_site';
/** One lock for every tally: each holds it for one small read and rewrite, and one name keeps every process agreeing. */
const TALLY_LOCK = 'audit-tallies';
const ID = /^[0-9]{13}-[0-9a-f]{16}$/;

/** An intent as stored: which process began it, so recovery need not wait for the deadline once it is gone. */
interface StoredIntent extends AuditIntent {
  owner: LockOwner;
}

/**
 * `audit/<org>/<id>.json`, one file per entry, created exclusively and never rewritten; ids start with the time,
 * so a directory listing is the log in time order. The site log lives in `audit/_site`. Intents live apart in
 * `audit-intents/<org>/<id>.json`: committing publishes the entry create-if-absent, then removes the intent, so a
 * crash between the two leaves an intent whose recovery finds the entry already there and only removes it. Refusal
 * tallies live apart in `audit-tallies/<org>/<id>.json`, each read and rewritten under the `audit-tallies` lock
 * (every process's), and are listed with the log.
 */
export class LocalAuditStore implements AuditStore {
  constructor(private readonly dir: DataDir) {}

  async append(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    await this.dir.createJson(this.entryPath(entry), entry, `Audit entry ${entry.id}`);
  }

  async tally(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    const path = this.tallyPath(entry);
    await this.dir.withLock(TALLY_LOCK, async () => {
      const stored = await this.dir.readJson<AuditEntry>(path);
      const { count: _count, lastSeen: _lastSeen, ...first } = entry;
      const counted = stored
        ? { ...stored, count: (stored.count ?? 1) + 1, lastSeen: Math.max(stored.lastSeen ?? stored.time, entry.time) }
        : { ...first, count: 1, lastSeen: entry.time };
      await this.dir.writeAtomic(path, JSON.stringify(counted));
    });
  }

  async begin(intent: AuditIntent): Promise<void> {
    checkId(intent.entry.id);
    const stored: StoredIntent = { ...intent, owner: lockOwner() };
    await this.dir.createJson(this.intentPath(intent.entry), stored, `Audit intent ${intent.entry.id}`);
  }

  async commit(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    // Create-if-absent: an entry already published (by recovery, or a commit cut short) stays as it is.
    await this.dir.publishExclusive(await this.dir.writeTemp(JSON.stringify(entry)), this.entryPath(entry));
    await this.dir.remove(this.intentPath(entry));
  }

  async discard(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    await this.dir.remove(this.intentPath(entry));
  }

  async recover(org: string, now: number): Promise<void> {
    const folder = this.dir.path('audit-intents', this.orgSegment(org));
    for (const file of await this.dir.list(folder)) {
      if (!file.endsWith('.json')) continue;
      const intent = await this.dir.readJson<StoredIntent>(this.dir.path('audit-intents', this.orgSegment(org), file));
      if (!intent) continue;
      // Gone: a process of this host that no longer runs (or a restarted one with its pid), judged as lock holders are.
      if (holderIsGone(intent.owner ?? {}) || intent.deadline < now) await this.commit({ ...intent.entry, outcome: 'unknown' });
    }
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    const limit = checkLimit(query.limit);
    const [entries, tallies] = await Promise.all([this.listFolder('audit', query, limit), this.listFolder('audit-tallies', query, limit)]);
    return mergeAuditPages(entries.entries, tallies.entries, limit, entries.more || tallies.more, encodeToken);
  }

  /** Up to `limit` records of one folder, newest first; `more`: the folder has another after them. */
  private async listFolder(folder: string, query: AuditQuery, limit: number): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const after = query.continuationToken === undefined ? undefined : decodeToken(query.continuationToken);
    const segment = this.orgSegment(query.org);
    const files = (await this.dir.list(this.dir.path(folder, segment))).filter((f) => f.endsWith('.json')).reverse();
    const entries: AuditEntry[] = [];
    for (const file of files) {
      const id = file.slice(0, -'.json'.length);
      if (after !== undefined && id >= after) continue;
      const time = Number(id.slice(0, 13));
      if (query.before !== undefined && time >= query.before) continue;
      if (query.since !== undefined && time < query.since) break;
      const entry = await this.dir.readJson<AuditEntry>(this.dir.path(folder, segment, file));
      if (!entry || !matches(entry, query)) continue;
      if (entries.length === limit) return { entries, more: true };
      entries.push(entry);
    }
    return { entries, more: false };
  }

  private tallyPath(entry: AuditEntry): string {
    return this.dir.path('audit-tallies', this.orgSegment(entry.org), `${entry.id}.json`);
  }

  private entryPath(entry: AuditEntry): string {
    return this.dir.path('audit', this.orgSegment(entry.org), `${entry.id}.json`);
  }

  private intentPath(entry: AuditEntry): string {
    return this.dir.path('audit-intents', this.orgSegment(entry.org), `${entry.id}.json`);
  }

  private orgSegment(org: string): string {
    return org === '' ? SITE : safeSegment(org, 'organization');
  }
}

/** The query's filters other than time (those the listing applies by file name). */
function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.actor === undefined || entry.actor === query.actor) &&
    (query.event === undefined || entry.event === query.event) &&
    (query.target === undefined || entry.target === query.target)
  );
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new InvalidInputError('Invalid audit entry id.');
}

function encodeToken(id: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id })).toString('base64url');
}

function decodeToken(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; id?: unknown };
    if (parsed.v === 1 && typeof parsed.id === 'string' && ID.test(parsed.id)) return parsed.id;
  } catch {
    // fall through to the typed error
  }
  throw new InvalidInputError('The continuation token is not valid for this listing: list again without it.');
}
