import { validateCreator, validateGrant, validateGrants, type StackPermission } from '../../core/kernel/permissions.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { formatStackRef, validateConfigEnvironment, validateStackRef, validateTags, type StackRef } from '../../core/names.js';
import type {
  ListStacksQuery,
  NewStack,
  OutboxEvent,
  StackChanges,
  StackPage,
  StackRecord,
  StackStore,
} from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';
import type { LocalOutbox } from './local-outbox.js';

const LOCK = 'stacks';

/**
 * Records at `stacks/by-id/<id>.json`; the name index `stacks/by-name/<org>/<project>/<stack>.json` holds the id.
 * All writes run under one lock, so a name and a revision change together or not at all. Reads through the name
 * index check that the record still carries that name, so an index entry left by a crash is never believed.
 * Hook events ride on the same locked write through the outbox (local-outbox.ts).
 */
export class LocalStackStore implements StackStore {
  constructor(
    private readonly dir: DataDir,
    private readonly outbox: LocalOutbox,
  ) {}

  async create(stack: NewStack, events?: readonly OutboxEvent[]): Promise<StackRecord> {
    const ref = validateStackRef(stack);
    const id = safeSegment(stack.id, 'stack id');
    const record: StackRecord = {
      id,
      org: ref.org,
      project: ref.project,
      stack: ref.stack,
      version: 0,
      revision: 1,
      tags: validateTags(stack.tags ?? {}),
      createdAt: stack.createdAt,
      ...(stack.encryptedDataKey !== undefined ? { encryptedDataKey: stack.encryptedDataKey } : {}),
      ...(stack.currentCheckpoint !== undefined ? { currentCheckpoint: stack.currentCheckpoint } : {}),
      ...(stack.createdBy !== undefined ? { createdBy: validateCreator(stack.createdBy) } : {}),
      ...(stack.grants !== undefined ? { grants: validateGrants(stack.grants) } : {}),
      ...(stack.configEnvironment !== undefined ? { configEnvironment: validateConfigEnvironment(stack.configEnvironment) } : {}),
    };
    return this.dir.withLock(LOCK, () =>
      this.outbox.around(events, { record: 'stack', stackId: id, revision: 1 }, async () => {
        if (await this.dir.readJson(this.idPath(id))) throw new ConflictError(`Stack id ${id} already exists.`);
        await this.takeName(ref, id);
        await this.dir.writeJson(this.idPath(id), record);
        return record;
      }),
    );
  }

  async get(ref: StackRef): Promise<StackRecord> {
    const valid = validateStackRef(ref);
    const found = await this.findByName(valid);
    if (!found) throw new NotFoundError(`Stack '${formatStackRef(valid)}' does not exist.`);
    return found;
  }

  async getById(id: string): Promise<StackRecord> {
    return this.dir.mustReadJson<StackRecord>(this.idPath(safeSegment(id, 'stack id')), `Stack ${id}`);
  }

  async list(query: ListStacksQuery): Promise<StackPage> {
    const org = validateStackRef({ org: query.org, project: 'p', stack: 's' }).org;
    const limit = query.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
      throw new InvalidInputError('The page size must be between 1 and 500.');
    }
    const after = query.continuationToken === undefined ? undefined : decodeToken(query.continuationToken);
    const projects =
      query.project === undefined
        ? await this.dir.list(this.dir.path('stacks', 'by-name', org))
        : [validateStackRef({ org, project: query.project, stack: 's' }).project];
    const stacks: StackRecord[] = [];
    let more = false;
    outer: for (const project of projects) {
      if (after && project < after[0]) continue;
      const names = (await this.dir.list(this.dir.path('stacks', 'by-name', org, project)))
        .filter((file) => file.endsWith('.json'))
        .map((file) => file.slice(0, -'.json'.length))
        .sort();
      for (const stack of names) {
        if (after && (project < after[0] || (project === after[0] && stack <= after[1]))) continue;
        const record = await this.findByName({ org, project, stack });
        if (!record) continue;
        if (query.tagName !== undefined) {
          const value = record.tags[query.tagName];
          if (value === undefined || (query.tagValue !== undefined && value !== query.tagValue)) continue;
        }
        if (stacks.length === limit) {
          more = true;
          break outer;
        }
        stacks.push(record);
      }
    }
    const last = stacks.at(-1);
    return more && last ? { stacks, continuationToken: encodeToken(last.project, last.stack) } : { stacks };
  }

  async update(
    id: string,
    expectedRevision: number,
    changes: StackChanges,
    events?: readonly OutboxEvent[],
  ): Promise<StackRecord> {
    const stackId = safeSegment(id, 'stack id');
    return this.dir.withLock(LOCK, () =>
      this.outbox.around(events, { record: 'stack', stackId, revision: expectedRevision + 1 }, async () => {
        const current = await this.current(stackId, expectedRevision);
        const next = applyChanges(current, changes);
        await this.dir.writeJson(this.idPath(current.id), next);
        return next;
      }),
    );
  }

  async rename(id: string, expectedRevision: number, to: StackRef, changes: StackChanges = {}): Promise<StackRecord> {
    const target = validateStackRef(to);
    return this.dir.withLock(LOCK, async () => {
      await this.outbox.recoverStacks();
      const current = await this.current(id, expectedRevision);
      if (target.org !== current.org) {
        throw new InvalidInputError('A stack can only be renamed within its organization.');
      }
      await this.takeName(target, current.id);
      const next = { ...applyChanges(current, changes), project: target.project, stack: target.stack };
      await this.dir.writeJson(this.idPath(current.id), next);
      await this.dir.remove(this.namePath(current));
      return next;
    });
  }

  async delete(id: string, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<void> {
    const stackId = safeSegment(id, 'stack id');
    await this.dir.withLock(LOCK, () =>
      this.outbox.around(events, { record: 'stack-deleted', stackId }, async () => {
        const current = await this.current(stackId, expectedRevision);
        await this.dir.remove(this.idPath(current.id));
        await this.dir.remove(this.namePath(current));
      }),
    );
  }

  async setGrant(id: string, subject: string, permission: StackPermission | null): Promise<StackRecord> {
    const stackId = safeSegment(id, 'stack id');
    validateGrant(subject, permission);
    return this.dir.withLock(LOCK, async () => {
      await this.outbox.recoverStacks();
      const current = await this.getById(stackId);
      const grants = { ...(current.grants ?? {}) };
      if (permission === null) delete grants[subject];
      else grants[subject] = permission;
      const next = applyChanges(current, { grants });
      await this.dir.writeJson(this.idPath(current.id), next);
      return next;
    });
  }

  private async current(id: string, expectedRevision: number): Promise<StackRecord> {
    const current = await this.getById(id);
    if (current.revision !== expectedRevision) {
      throw new ConflictError(`Stack '${formatStackRef(current)}' was changed by someone else; reload and retry.`, {
        expectedRevision,
        revision: current.revision,
      });
    }
    return current;
  }

  /** Takes a name for `id`, reclaiming an index entry whose stack no longer carries that name (left by a crash). */
  private async takeName(ref: StackRef, id: string): Promise<void> {
    const path = this.namePath(ref);
    const holder = await this.findByName(ref);
    if (holder) {
      throw new ConflictError(`Stack '${formatStackRef(ref)}' already exists.`, { name: formatStackRef(ref) });
    }
    await this.dir.writeJson(path, { id });
  }

  private async findByName(ref: StackRef): Promise<StackRecord | undefined> {
    const entry = await this.dir.readJson<{ id: string }>(this.namePath(ref));
    if (!entry) return undefined;
    const record = await this.dir.readJson<StackRecord>(this.idPath(entry.id));
    if (!record || record.org !== ref.org || record.project !== ref.project || record.stack !== ref.stack) {
      return undefined;
    }
    return record;
  }

  private idPath(id: string): string {
    return this.dir.path('stacks', 'by-id', `${id}.json`);
  }

  private namePath(ref: StackRef): string {
    return this.dir.path('stacks', 'by-name', ref.org, ref.project, `${ref.stack}.json`);
  }
}

function applyChanges(current: StackRecord, changes: StackChanges): StackRecord {
  const next: StackRecord = { ...current, revision: current.revision + 1 };
  if (changes.version !== undefined) next.version = changes.version;
  if (changes.tags !== undefined) next.tags = validateTags(changes.tags);
  if (changes.grants !== undefined) next.grants = validateGrants(changes.grants);
  const optional = ['lastUpdate', 'resourceCount', 'encryptedDataKey', 'currentCheckpoint', 'activeUpdate', 'configEnvironment'] as const;
  if (typeof changes.configEnvironment === 'string') validateConfigEnvironment(changes.configEnvironment);
  for (const field of optional) {
    const value = changes[field];
    if (value === null) delete next[field];
    else if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  }
  return next;
}

function encodeToken(project: string, stack: string): string {
  return Buffer.from(JSON.stringify({ v: 1, p: project, s: stack })).toString('base64url');
}

function decodeToken(token: string): [string, string] {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (parsed.v === 1 && typeof parsed.p === 'string' && typeof parsed.s === 'string') return [parsed.p, parsed.s];
  } catch {
    // fall through to the typed error
  }
  throw new InvalidInputError('The continuation token is not valid; start the listing again without it.');
}
