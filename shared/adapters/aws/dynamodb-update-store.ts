import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import type { HistoryPage, NewUpdate, UpdateChanges, UpdateRecord, UpdateStore } from '../../ports/update-store.js';
import { updateWithEvents } from './conditional-update.js';
import { requireStackId } from './dynamodb-stack-items.js';
import { translateDynamoDbError } from './errors.js';
import { queryByPrefix } from './queries.js';
import { historySk, stackPk, updateSk } from './keys.js';
import { KEY, putNew } from './table.js';

const KINDS = new Set(['update', 'preview', 'refresh', 'destroy', 'import', 'rename', 'resource-import']);
const STATUSES = new Set(['not-started', 'in-progress', 'succeeded', 'failed', 'cancelled']);
const END_REASONS = new Set(['lease-expired', 'policy-bypassed']);
const MAX_END_MESSAGE = 4096;
const CHANGE_FIELDS = [
  'status',
  'startedAt',
  'endedAt',
  'version',
  'resourceChanges',
  'resourceCount',
  'checkpointCount',
  'checkpoint',
  'completedTokenHash',
  'cancelledBy',
  'endReason',
  'endMessage',
] as const;
const BATCH_SIZE = 25;

function requireUpdateId(id: unknown): string {
  if (typeof id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(id)) {
    throw new InvalidInputError("Invalid update id: expected 1 to 128 letters, digits, '-', '_' or '.'.");
  }
  return id;
}

function requireCount(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(`Invalid ${what}: expected a whole number of at least 0.`);
  }
}

function toRecord(item: Record<string, unknown>): UpdateRecord {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...record } = item;
  return record as unknown as UpdateRecord;
}

function checkChanges(changes: UpdateChanges): void {
  if (changes === null || typeof changes !== 'object') throw new InvalidInputError('Update changes must be an object.');
  if (changes.status !== undefined && !STATUSES.has(changes.status)) {
    throw new InvalidInputError(`Invalid update status '${String(changes.status)}'.`);
  }
  for (const field of ['startedAt', 'endedAt', 'version', 'resourceCount', 'checkpointCount'] as const) {
    if (changes[field] !== undefined) requireCount(changes[field], field);
  }
  for (const field of ['checkpoint', 'completedTokenHash', 'cancelledBy'] as const) {
    const value = changes[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 1024)) {
      throw new InvalidInputError(`Invalid ${field}: expected a non-empty string.`);
    }
  }
  if (changes.endReason !== undefined && !END_REASONS.has(changes.endReason)) {
    throw new InvalidInputError(`Invalid endReason '${String(changes.endReason)}'.`);
  }
  if (changes.endMessage !== undefined && (typeof changes.endMessage !== 'string' || changes.endMessage.length > MAX_END_MESSAGE)) {
    throw new InvalidInputError(`Invalid endMessage: expected text of at most ${MAX_END_MESSAGE} characters.`);
  }
  if (changes.resourceChanges !== undefined) {
    const entries = Object.entries(changes.resourceChanges ?? {});
    if (changes.resourceChanges === null || typeof changes.resourceChanges !== 'object' || entries.some(([, n]) => typeof n !== 'number')) {
      throw new InvalidInputError('Invalid resourceChanges: expected a map of operation names to counts.');
    }
  }
}

/** Update records (`UPDATE#<id>`) and history entries (`HISTORY#<version>`) in each stack's partition. */
export class DynamoDbUpdateStore implements UpdateStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(update: NewUpdate): Promise<UpdateRecord> {
    requireStackId(update.stackId);
    requireUpdateId(update.id);
    if (!KINDS.has(update.kind)) throw new InvalidInputError(`Invalid update kind '${String(update.kind)}'.`);
    if (!STATUSES.has(update.status)) throw new InvalidInputError(`Invalid update status '${String(update.status)}'.`);
    if (typeof update.dryRun !== 'boolean') throw new InvalidInputError('dryRun must be true or false.');
    if (typeof update.requestedBy !== 'string' || update.requestedBy.length === 0) {
      throw new InvalidInputError('requestedBy must name a user.');
    }
    requireCount(update.createdAt, 'createdAt');
    const record: UpdateRecord = { ...update, environment: update.environment ?? {}, config: update.config ?? {}, checkpointCount: 0, revision: 1 };
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: stackPk(update.stackId), [KEY.sort]: updateSk(update.id), ...record })),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new ConflictError(`Update ${update.id} already exists.`, { updateId: update.id }, { cause: error });
      }
      throw translateDynamoDbError(error, 'The update');
    }
    return record;
  }

  async get(stackId: string, updateId: string): Promise<UpdateRecord> {
    requireStackId(stackId);
    requireUpdateId(updateId);
    try {
      const { Item } = await this.documents.send(
        new GetCommand({
          TableName: this.table,
          Key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: updateSk(updateId) },
          ConsistentRead: true,
        }),
      );
      if (!Item) throw new NotFoundError(`Update ${updateId} of stack ${stackId} does not exist.`);
      return toRecord(Item);
    } catch (error) {
      throw translateDynamoDbError(error, 'The update');
    }
  }

  async update(
    stackId: string,
    updateId: string,
    expectedRevision: number,
    changes: UpdateChanges,
    events?: readonly OutboxEvent[],
  ): Promise<UpdateRecord> {
    requireStackId(stackId);
    requireUpdateId(updateId);
    requireCount(expectedRevision, 'expected revision');
    checkChanges(changes);
    const names: Record<string, string> = { '#pk': KEY.partition, '#revision': 'revision' };
    const values: Record<string, unknown> = { ':one': 1, ':expectedRevision': expectedRevision };
    const sets = ['#revision = #revision + :one'];
    for (const field of CHANGE_FIELDS) {
      if (changes[field] === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = changes[field];
      sets.push(`#${field} = :${field}`);
    }
    return updateWithEvents(
      this.documents,
      this.table,
      {
        key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: updateSk(updateId) },
        expression: `SET ${sets.join(', ')}`,
        condition: 'attribute_exists(#pk) AND #revision = :expectedRevision',
        names,
        values,
      },
      events,
      {
        what: 'The update',
        toRecord,
        readBack: () => this.get(stackId, updateId),
        conditionFailed: (current, cause) =>
          current
            ? new ConflictError(
                `Update ${updateId} was changed by someone else (revision ${current.revision}, expected ${expectedRevision}).`,
                { updateId, expectedRevision, actualRevision: current.revision },
                { cause },
              )
            : new NotFoundError(`Update ${updateId} of stack ${stackId} does not exist.`, { cause }),
      },
    );
  }

  async recordHistory(update: UpdateRecord): Promise<void> {
    requireStackId(update.stackId);
    requireUpdateId(update.id);
    if (update.dryRun) throw new InvalidInputError('Dry runs are not part of the history.');
    requireCount(update.version, 'version');
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { ...update, [KEY.partition]: stackPk(update.stackId), [KEY.sort]: historySk(update.version!) })),
      );
    } catch (error) {
      // Idempotent: the first entry recorded for a version wins.
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return;
      throw translateDynamoDbError(error, 'The history entry');
    }
  }

  async getHistory(stackId: string, version: number): Promise<UpdateRecord> {
    requireStackId(stackId);
    requireCount(version, 'version');
    try {
      const { Item } = await this.documents.send(
        new GetCommand({
          TableName: this.table,
          Key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: historySk(version) },
          ConsistentRead: true,
        }),
      );
      if (!Item) throw new NotFoundError(`Stack ${stackId} has no version ${version}.`);
      return toRecord(Item);
    } catch (error) {
      throw translateDynamoDbError(error, 'The history entry');
    }
  }

  async listHistory(stackId: string, page: number, pageSize: number): Promise<HistoryPage> {
    requireStackId(stackId);
    if (!Number.isSafeInteger(page) || page < 1) throw new InvalidInputError('Invalid page: pages start at 1.');
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw new InvalidInputError('Invalid page size: expected 1 to 100.');
    }
    const wanted = page * pageSize;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    try {
      do {
        const result = await this.documents.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :history)',
            ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
            ExpressionAttributeValues: { ':pk': stackPk(stackId), ':history': 'HISTORY#' },
            ScanIndexForward: false,
            ConsistentRead: true,
            Limit: wanted - items.length,
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(result.Items ?? []));
        startKey = result.LastEvaluatedKey;
      } while (startKey && items.length < wanted);
    } catch (error) {
      throw translateDynamoDbError(error, 'The history');
    }
    return { updates: items.slice((page - 1) * pageSize).map(toRecord) };
  }

  async deleteAll(stackId: string): Promise<void> {
    requireStackId(stackId);
    try {
      for (const prefix of ['UPDATE#', 'HISTORY#']) {
        await this.deleteKeys(await queryByPrefix(this.documents, this.table, stackPk(stackId), prefix, { keysOnly: true }));
      }
    } catch (error) {
      throw translateDynamoDbError(error, 'The update records');
    }
  }

  private async deleteKeys(keys: Record<string, unknown>[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH_SIZE) {
      let requests = keys.slice(i, i + BATCH_SIZE).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
        const { UnprocessedItems } = await this.documents.send(
          new BatchWriteCommand({ RequestItems: { [this.table]: requests } }),
        );
        requests = (UnprocessedItems?.[this.table] ?? []) as typeof requests;
      }
    }
  }
}
