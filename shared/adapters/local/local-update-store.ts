import { ConflictError, InvalidInputError } from '../../core/errors.js';
import type { HistoryPage, NewUpdate, OutboxEvent, UpdateChanges, UpdateRecord, UpdateStore } from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';
import type { LocalOutbox } from './local-outbox.js';

/** Updates at `updates/<stackId>/<updateId>.json`, history at `history/<stackId>/<version, 12 digits>.json`. */
export class LocalUpdateStore implements UpdateStore {
  constructor(
    private readonly dir: DataDir,
    private readonly outbox: LocalOutbox,
  ) {}

  async create(update: NewUpdate): Promise<UpdateRecord> {
    const record: UpdateRecord = { ...update, checkpointCount: 0, revision: 1 };
    await this.dir.createJson(this.path(update.stackId, update.id), record, `Update ${update.id}`);
    return record;
  }

  async get(stackId: string, updateId: string): Promise<UpdateRecord> {
    return this.dir.mustReadJson<UpdateRecord>(this.path(stackId, updateId), `Update ${updateId}`);
  }

  async update(
    stackId: string,
    updateId: string,
    expectedRevision: number,
    changes: UpdateChanges,
    events?: readonly OutboxEvent[],
  ): Promise<UpdateRecord> {
    const path = this.path(stackId, updateId);
    const commit = { record: 'update', stackId, updateId, revision: expectedRevision + 1 } as const;
    return this.dir.withLock(`updates-${stackId}`, () =>
      this.outbox.around(events, commit, async () => {
        const current = await this.dir.mustReadJson<UpdateRecord>(path, `Update ${updateId}`);
        if (current.revision !== expectedRevision) {
          throw new ConflictError(`Update ${updateId} was changed by someone else; reload and retry.`, {
            expectedRevision,
            revision: current.revision,
          });
        }
        const next: UpdateRecord = { ...current, ...changes, revision: current.revision + 1 };
        await this.dir.writeJson(path, next);
        return next;
      }),
    );
  }

  async recordHistory(update: UpdateRecord): Promise<void> {
    const stackId = safeSegment(update.stackId, 'stack id');
    if (!Number.isInteger(update.version) || update.version! < 0) {
      throw new InvalidInputError('A history entry needs the version the update produced.');
    }
    const target = this.historyPath(stackId, update.version!);
    const temp = await this.dir.writeTemp(JSON.stringify(update));
    // Idempotent per version: a second record of the same version keeps the first entry.
    await this.dir.publishExclusive(temp, target);
  }

  async getHistory(stackId: string, version: number): Promise<UpdateRecord> {
    const id = safeSegment(stackId, 'stack id');
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new InvalidInputError('A version is a whole number of at least 0.');
    }
    return this.dir.mustReadJson<UpdateRecord>(this.historyPath(id, version), `Version ${version} of stack ${id}`);
  }

  async listHistory(stackId: string, page: number, pageSize: number): Promise<HistoryPage> {
    const id = safeSegment(stackId, 'stack id');
    if (!Number.isInteger(page) || page < 1) throw new InvalidInputError('The page number must be 1 or more.');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw new InvalidInputError('The page size must be between 1 and 100.');
    }
    const dir = this.dir.path('history', id);
    const files = (await this.dir.list(dir)).filter((f) => f.endsWith('.json')).reverse();
    const slice = files.slice((page - 1) * pageSize, page * pageSize);
    const updates: UpdateRecord[] = [];
    for (const file of slice) {
      const entry = await this.dir.readJson<UpdateRecord>(this.dir.path('history', id, file));
      if (entry) updates.push(entry);
    }
    return { updates };
  }

  async deleteAll(stackId: string): Promise<void> {
    const id = safeSegment(stackId, 'stack id');
    await this.dir.remove(this.dir.path('updates', id));
    await this.dir.remove(this.dir.path('history', id));
  }

  private historyPath(stackId: string, version: number): string {
    return this.dir.path('history', stackId, `${String(version).padStart(12, '0')}.json`);
  }

  private path(stackId: string, updateId: string): string {
    return this.dir.path('updates', safeSegment(stackId, 'stack id'), `${safeSegment(updateId, 'update id')}.json`);
  }
}

