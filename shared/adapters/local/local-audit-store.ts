import { InvalidInputError } from '../../core/errors.js';
import { checkAuditLimit as checkLimit, type AuditEntry, type AuditPage, type AuditQuery, type AuditStore } from '../../ports/audit-store.js';
import { safeSegment, type DataDir } from './files.js';

const SITE = '_site';
const ID = /^[0-9]{13}-[0-9a-f]{16}$/;

/**
 * `audit/<org>/<id>.json`, one file per entry, created exclusively and never rewritten; ids start with the time,
 * so a directory listing is the log in time order. The site log lives in `audit/_site`.
 */
export class LocalAuditStore implements AuditStore {
  constructor(private readonly dir: DataDir) {}

  async append(entry: AuditEntry): Promise<void> {
    if (!ID.test(entry.id)) throw new InvalidInputError('Invalid audit entry id.');
    await this.dir.createJson(this.dir.path('audit', this.orgSegment(entry.org), `${entry.id}.json`), entry, `Audit entry ${entry.id}`);
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    const limit = checkLimit(query.limit);
    const after = query.continuationToken === undefined ? undefined : decodeToken(query.continuationToken);
    const segment = this.orgSegment(query.org);
    const files = (await this.dir.list(this.dir.path('audit', segment))).filter((f) => f.endsWith('.json')).reverse();
    const entries: AuditEntry[] = [];
    for (const file of files) {
      const id = file.slice(0, -'.json'.length);
      if (after !== undefined && id >= after) continue;
      const time = Number(id.slice(0, 13));
      if (query.before !== undefined && time >= query.before) continue;
      if (query.since !== undefined && time < query.since) break;
      const entry = await this.dir.readJson<AuditEntry>(this.dir.path('audit', segment, file));
      if (!entry || (query.actor !== undefined && entry.actor !== query.actor) || (query.event !== undefined && entry.event !== query.event)) continue;
      if (entries.length === limit) return { entries, continuationToken: encodeToken(entries[entries.length - 1]!.id) };
      entries.push(entry);
    }
    return { entries };
  }

  private orgSegment(org: string): string {
    return org === '' ? SITE : safeSegment(org, 'organization');
  }
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
