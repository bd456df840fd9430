import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/errors.js';
import type { ScheduleRecord, ScheduleStore } from '../../ports/schedule-store.js';
import { translateDynamoDbError } from './errors.js';
import { KEY, putNew } from './table.js';
import { failedOnCondition } from './queries.js';

const schedulesPk = (stackId: string) => `SCHED#${stackId}`;
const scheduleSk = (id: string) => `SCHEDULE#${id}`;
/** The due index: one item per schedule that will fire, sorted by when, so `due` is one query. */
const DUE_PK = 'SCHEDDUE';
const dueSk = (schedule: Pick<ScheduleRecord, 'nextExecution' | 'stackId' | 'id'>) =>
  `${String(schedule.nextExecution).padStart(15, '0')}#${schedule.stackId}#${schedule.id}`;
/** A schedule write applies only at the revision its writer read: of schedulers firing one due time, one wins. */
const AT_REVISION = '#revision = :expected';

const inIndex = (schedule: ScheduleRecord) => !schedule.paused && schedule.nextExecution !== undefined;


/**
 * Schedules as items of the Stackyard table: `SCHED#<stackId>` / `SCHEDULE#<id>`, and for each one that will fire an
 * index item `SCHEDDUE` / `<nextExecution>#<stackId>#<id>`, moved in the same transaction as the schedule.
 */
export class DynamoDbScheduleStore implements ScheduleStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(schedule: ScheduleRecord): Promise<void> {
    const items: object[] = [{ Put: putNew(this.table, { [KEY.partition]: schedulesPk(schedule.stackId), [KEY.sort]: scheduleSk(schedule.id), ...schedule }) }];
    if (inIndex(schedule)) items.push({ Put: this.dueItem(schedule) });
    await this.transact(items, 'The schedule already exists.');
  }

  async get(stackId: string, id: string): Promise<ScheduleRecord | undefined> {
    const result = await this.call(() =>
      this.documents.send(new GetCommand({ TableName: this.table, Key: this.key(stackId, id), ConsistentRead: true })),
    );
    return result.Item ? strip(result.Item) : undefined;
  }

  async list(stackId: string): Promise<ScheduleRecord[]> {
    const schedules: ScheduleRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.call(() =>
        this.documents.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': KEY.partition },
            ExpressionAttributeValues: { ':pk': schedulesPk(stackId) },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        ),
      );
      schedules.push(...(page.Items ?? []).map(strip));
      start = page.LastEvaluatedKey;
    } while (start);
    return schedules.sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  }

  async update(schedule: ScheduleRecord, expectedRevision: number): Promise<ScheduleRecord> {
    const current = await this.get(schedule.stackId, schedule.id);
    if (!current || current.revision !== expectedRevision) throw changed();
    const items: object[] = [
      {
        Put: {
          TableName: this.table,
          Item: { ...this.key(schedule.stackId, schedule.id), ...schedule },
          ConditionExpression: AT_REVISION,
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':expected': expectedRevision },
        },
      },
    ];
    // The index item the read revision had goes, the new one comes: a revision wins once, so both are exact.
    if (inIndex(current)) items.push({ Delete: { TableName: this.table, Key: { [KEY.partition]: DUE_PK, [KEY.sort]: dueSk(current) } } });
    if (inIndex(schedule)) items.push({ Put: this.dueItem(schedule) });
    await this.transact(items, 'The schedule changed since it was read: read it again and retry.');
    return schedule;
  }

  async delete(stackId: string, id: string): Promise<void> {
    for (;;) {
      const current = await this.get(stackId, id);
      if (!current) return;
      const items: object[] = [
        {
          Delete: {
            TableName: this.table,
            Key: this.key(stackId, id),
            ConditionExpression: AT_REVISION,
            ExpressionAttributeNames: { '#revision': 'revision' },
            ExpressionAttributeValues: { ':expected': current.revision },
          },
        },
      ];
      if (inIndex(current)) items.push({ Delete: { TableName: this.table, Key: { [KEY.partition]: DUE_PK, [KEY.sort]: dueSk(current) } } });
      try {
        await this.transact(items, 'The schedule changed while it was removed.');
        return;
      } catch (error) {
        // Fired or edited in between: read it again and remove what is there now.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }

  async due(now: number, limit: number): Promise<ScheduleRecord[]> {
    const page = await this.call(() =>
      this.documents.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :pk AND #sk <= :until',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
          // '~' sorts after every stack id character, so every schedule due at `now` is included.
          ExpressionAttributeValues: { ':pk': DUE_PK, ':until': `${String(now).padStart(15, '0')}#~` },
          ConsistentRead: true,
          Limit: limit,
        }),
      ),
    );
    const found = await Promise.all((page.Items ?? []).map((item) => this.get(String(item.stackId), String(item.id))));
    return found.filter((s): s is ScheduleRecord => s !== undefined && inIndex(s) && s.nextExecution! <= now);
  }

  private dueItem(schedule: ScheduleRecord) {
    return { TableName: this.table, Item: { [KEY.partition]: DUE_PK, [KEY.sort]: dueSk(schedule), stackId: schedule.stackId, id: schedule.id } };
  }

  private key(stackId: string, id: string) {
    return { [KEY.partition]: schedulesPk(stackId), [KEY.sort]: scheduleSk(id) };
  }

  private async transact(items: object[], conflict: string): Promise<void> {
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: items as never }));
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError(conflict, {}, { cause: error });
      throw translateDynamoDbError(error, 'The schedule');
    }
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw translateDynamoDbError(error, 'The schedules');
    }
  }
}

function strip(item: Record<string, unknown>): ScheduleRecord {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...rest } = item;
  return rest as unknown as ScheduleRecord;
}

function changed(): ConflictError {
  return new ConflictError('The schedule changed since it was read: read it again and retry.');
}
