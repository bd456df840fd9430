import { join } from 'node:path';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { validateEnvironmentGrant, type EnvironmentPermission } from '../../core/kernel/permissions.js';
import { formatEnvironmentRef, validateEnvironmentRef, validateOrgName, type EnvironmentRef } from '../../core/names.js';
import type {
  EnvironmentPage,
  EnvironmentRecord,
  EnvironmentRevisionRecord,
  EnvironmentStore,
  NewEnvironment,
  NewRevision,
  OpenSessionRecord,
  RevisionTagRecord,
} from '../../ports/environment-store.js';
import { safeSegment, type DataDir } from './files.js';
import { decodePageToken, encodePageToken, pageLimit, revisionNumber, staleRevision } from '../environment-rules.js';

const NAMES_LOCK = 'environments';
const envLock = (id: string) => `environment-${id}`;

/**
 * `environments/by-id/<id>/record.json` with `revisions/<n>.json` and `tags/<name>.json` beside it; the name index
 * `environments/by-name/<org>/<project>/<name>.json` holds the id; open sessions at `environments/sessions/<id>.json`.
 * Name changes run under one lock, an environment's own writes under its lock (taken after the name lock when both
 * are needed), so a revision and the record that counts it change together. A read through the name index checks
 * that the record carries that name, so an entry left by a crash is never believed.
 */
export class LocalEnvironmentStore implements EnvironmentStore {
  constructor(
    private readonly dir: DataDir,
    private readonly now: () => number,
  ) {}

  async create(environment: NewEnvironment, first: NewRevision): Promise<EnvironmentRecord> {
    const ref = validateEnvironmentRef(environment);
    const id = safeSegment(environment.id, 'environment id');
    const record: EnvironmentRecord = {
      id,
      ...ref,
      revision: 1,
      encryptedDataKey: environment.encryptedDataKey,
      createdBy: environment.createdBy,
      grants: { ...(environment.grants ?? {}) },
      createdAt: first.createdAt,
      modifiedAt: first.createdAt,
    };
    return this.dir.withLock(NAMES_LOCK, () =>
      this.dir.withLock(envLock(id), async () => {
        if (await this.findByName(ref)) {
          throw new ConflictError(`Environment '${formatEnvironmentRef(ref)}' already exists.`, { name: formatEnvironmentRef(ref) });
        }
        if (await this.dir.readJson(this.recordPath(id))) throw new ConflictError(`Environment id ${id} already exists.`);
        await this.dir.writeJson(this.revisionPath(id, 1), revisionOf(1, first));
        await this.dir.writeJson(this.recordPath(id), record);
        await this.dir.writeJson(this.namePath(ref), { id });
        return record;
      }),
    );
  }

  async get(ref: EnvironmentRef): Promise<EnvironmentRecord> {
    const valid = validateEnvironmentRef(ref);
    const found = await this.findByName(valid);
    if (!found) throw new NotFoundError(`Environment '${formatEnvironmentRef(valid)}' does not exist.`);
    return found;
  }

  async getById(id: string): Promise<EnvironmentRecord> {
    return this.dir.mustReadJson<EnvironmentRecord>(this.recordPath(safeSegment(id, 'environment id')), `Environment ${id}`);
  }

  async list(org: string, options: { limit?: number; continuationToken?: string } = {}): Promise<EnvironmentPage> {
    const valid = validateOrgName(org);
    const limit = pageLimit(options.limit);
    const after = options.continuationToken === undefined ? undefined : decodePageToken(options.continuationToken);
    const environments: EnvironmentRecord[] = [];
    const root = this.dir.path('environments', 'by-name', valid);
    for (const project of await this.dir.list(root)) {
      // Sorted by name, not file name: `dev-copy.json` sorts before `dev.json`, `dev` before `dev-copy`.
      const names = (await this.dir.list(join(root, project))).filter((file) => file.endsWith('.json')).map((file) => file.slice(0, -'.json'.length));
      for (const name of names.sort()) {
        if (after && (project < after.project || (project === after.project && name <= after.name))) continue;
        const record = await this.findByName({ org: valid, project, name });
        if (!record) continue;
        if (environments.length === limit) {
          const last = environments.at(-1)!;
          return { environments, continuationToken: encodePageToken(last) };
        }
        environments.push(record);
      }
    }
    return { environments };
  }

  async addRevision(id: string, expectedRevision: number, revision: NewRevision): Promise<EnvironmentRecord> {
    const envId = safeSegment(id, 'environment id');
    return this.dir.withLock(envLock(envId), async () => {
      const current = await this.getById(envId);
      if (current.revision !== expectedRevision) throw staleRevision(current, expectedRevision);
      const number = current.revision + 1;
      await this.dir.writeJson(this.revisionPath(envId, number), revisionOf(number, revision));
      const next = { ...current, revision: number, modifiedAt: revision.createdAt };
      await this.dir.writeJson(this.recordPath(envId), next);
      return next;
    });
  }

  async getRevision(id: string, revision: number): Promise<EnvironmentRevisionRecord> {
    const envId = safeSegment(id, 'environment id');
    const record = await this.getById(envId);
    const number = revisionNumber(revision);
    // A revision file past the record's count was written by an append that crashed before its record: not there.
    const found = number <= record.revision ? await this.dir.readJson<EnvironmentRevisionRecord>(this.revisionPath(envId, number)) : undefined;
    if (!found) throw new NotFoundError(`Revision ${number} of environment '${formatEnvironmentRef(record)}' does not exist.`);
    return found;
  }

  async listRevisions(id: string, options: { before?: number; count: number }): Promise<EnvironmentRevisionRecord[]> {
    const envId = safeSegment(id, 'environment id');
    const record = await this.getById(envId);
    const top = Math.min(record.revision, options.before === undefined ? record.revision : options.before - 1);
    const revisions: EnvironmentRevisionRecord[] = [];
    for (let number = top; number >= 1 && revisions.length < options.count; number -= 1) {
      const found = await this.dir.readJson<EnvironmentRevisionRecord>(this.revisionPath(envId, number));
      if (found) revisions.push(found);
    }
    return revisions;
  }

  async delete(id: string, expectedRevision: number): Promise<void> {
    const envId = safeSegment(id, 'environment id');
    await this.dir.withLock(NAMES_LOCK, () =>
      this.dir.withLock(envLock(envId), async () => {
        const current = await this.getById(envId);
        if (current.revision !== expectedRevision) throw staleRevision(current, expectedRevision);
        await this.dir.remove(this.namePath(current));
        await this.dir.writeJson(this.tombstonePath(envId), current);
        await this.dir.remove(this.recordPath(envId));
      }),
    );
  }

  async setGrant(id: string, subject: string, permission: EnvironmentPermission | null): Promise<EnvironmentRecord> {
    const envId = safeSegment(id, 'environment id');
    validateEnvironmentGrant(subject, permission);
    return this.dir.withLock(envLock(envId), async () => {
      const current = await this.getById(envId);
      const grants = { ...current.grants };
      if (permission === null) delete grants[subject];
      else grants[subject] = permission;
      const next = { ...current, grants };
      await this.dir.writeJson(this.recordPath(envId), next);
      return next;
    });
  }

  async createTag(id: string, tag: RevisionTagRecord): Promise<RevisionTagRecord> {
    const envId = safeSegment(id, 'environment id');
    return this.dir.withLock(envLock(envId), async () => {
      await this.getById(envId);
      const path = this.tagPath(envId, tag.name);
      if (await this.dir.readJson(path)) throw new ConflictError(`Tag '${tag.name}' already exists.`);
      await this.dir.writeJson(path, tag);
      return tag;
    });
  }

  async updateTag(id: string, name: string, revision: number, editorLogin: string, modifiedAt: number): Promise<RevisionTagRecord> {
    const envId = safeSegment(id, 'environment id');
    return this.dir.withLock(envLock(envId), async () => {
      const current = await this.getTag(envId, name);
      const next = { ...current, revision: revisionNumber(revision), editorLogin, modifiedAt };
      await this.dir.writeJson(this.tagPath(envId, name), next);
      return next;
    });
  }

  async deleteTag(id: string, name: string): Promise<void> {
    const envId = safeSegment(id, 'environment id');
    await this.dir.withLock(envLock(envId), async () => {
      await this.getTag(envId, name);
      await this.dir.remove(this.tagPath(envId, name));
    });
  }

  async getTag(id: string, name: string): Promise<RevisionTagRecord> {
    return this.dir.mustReadJson<RevisionTagRecord>(this.tagPath(safeSegment(id, 'environment id'), name), `Tag '${name}'`);
  }

  async listTags(id: string): Promise<RevisionTagRecord[]> {
    const folder = this.dir.path('environments', 'by-id', safeSegment(id, 'environment id'), 'tags');
    const tags: RevisionTagRecord[] = [];
    for (const file of await this.dir.list(folder)) {
      const tag = await this.dir.readJson<RevisionTagRecord>(join(folder, file));
      if (tag) tags.push(tag);
    }
    return tags.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async createOpenSession(session: OpenSessionRecord): Promise<void> {
    await this.dir.createJson(this.sessionPath(session.id), session, 'Open session');
  }

  async getOpenSession(id: string): Promise<OpenSessionRecord | undefined> {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) return undefined;
    const session = await this.dir.readJson<OpenSessionRecord>(this.sessionPath(id));
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      await this.dir.remove(this.sessionPath(id));
      return undefined;
    }
    return session;
  }

  private async findByName(ref: EnvironmentRef): Promise<EnvironmentRecord | undefined> {
    const entry = await this.dir.readJson<{ id: string }>(this.namePath(ref));
    if (!entry) return undefined;
    const record = await this.dir.readJson<EnvironmentRecord>(this.recordPath(entry.id));
    if (!record || record.org !== ref.org || record.project !== ref.project || record.name !== ref.name) return undefined;
    return record;
  }

  private recordPath(id: string): string {
    return this.dir.path('environments', 'by-id', id, 'record.json');
  }

  private tombstonePath(id: string): string {
    return this.dir.path('environments', 'by-id', id, 'deleted.json');
  }

  private revisionPath(id: string, number: number): string {
    return this.dir.path('environments', 'by-id', id, 'revisions', `${String(number).padStart(12, '0')}.json`);
  }

  private tagPath(id: string, name: string): string {
    return this.dir.path('environments', 'by-id', id, 'tags', `${safeSegment(name, 'tag name')}.json`);
  }

  private namePath(ref: EnvironmentRef): string {
    const valid = validateEnvironmentRef(ref);
    return this.dir.path('environments', 'by-name', valid.org, valid.project, `${valid.name}.json`);
  }

  private sessionPath(id: string): string {
    return this.dir.path('environments', 'sessions', `${safeSegment(id, 'session id')}.json`);
  }
}

function revisionOf(number: number, revision: NewRevision): EnvironmentRevisionRecord {
  if (typeof revision.definition !== 'string' || revision.definition.length === 0) {
    throw new InvalidInputError('A revision needs the name of its definition object.');
  }
  return { number, definition: revision.definition, createdAt: revision.createdAt, creatorLogin: revision.creatorLogin };
}
