import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { validateOutboxEvents } from '../../core/hooks/outbox-events.js';
import type {
  DeliveryAttempt,
  DeliveryOutcome,
  DeliveryRecord,
  DeliveryRef,
  HookRecord,
  HookScope,
  HookStore,
  NewDelivery,
  OutboxEvent,
} from '../../ports/hook-store.js';
import { translateDynamoDbError } from './errors.js';
import { queryByPrefix } from './queries.js';
import {
  DUE_INDEX_PK,
  OUTBOX_INDEX_PK,
  OUTBOX_SK,
  deadLettersPk,
  deliveryPrefix,
  hookScopeKey,
  hookSk,
  hooksPk,
  outboxPk,
} from './keys.js';
import { KEY, putNew, STACKS_BY_NAME_INDEX } from './table.js';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const HOOK_FIELDS = ['org', 'stackId', 'name', 'events', 'destination', 'active', 'gate', 'failOpen', 'createdBy', 'createdAt'] as const;
const DELIVERY_FIELDS = [
  'org',
  'stackId',
  'hook',
  'id',
  'eventId',
  'kind',
  'payload',
  'createdAt',
  'redeliveryOf',
  'status',
  'attempts',
  'nextAttemptAt',
  'claimedUntil',
  'revision',
] as const;

function segment(value: unknown, what: string): string {
  if (typeof value !== 'string' || !SEGMENT.test(value)) {
    throw new InvalidInputError(`Invalid ${what}: use 1 to 128 letters, digits, '.', '_' or '-'.`);
  }
  return value;
}

function pick<T>(item: Record<string, unknown>, fields: readonly string[]): T {
  const record: Record<string, unknown> = {};
  for (const field of fields) if (item[field] !== undefined) record[field] = item[field];
  return record as T;
}

/** `<epoch ms, 13 digits>#…`: due deliveries sort by due time in gsi1. */
function dueSortKey(at: number, sk: string): string {
  return `${String(Math.max(0, Math.floor(at))).padStart(13, '0')}#${sk}`;
}

/**
 * The transaction items that put `events` into the outbox; the stack and update stores append them to the
 * transaction of the state change, so the change and its events commit together or not at all.
 */
export function outboxPuts(table: string, events: readonly OutboxEvent[] | undefined): Record<string, unknown>[] {
  if (!events || events.length === 0) return [];
  return validateOutboxEvents(events).map((event) => ({
    Put: {
      TableName: table,
      Item: {
        [KEY.partition]: outboxPk(event.id),
        [KEY.sort]: OUTBOX_SK,
        [KEY.gsi1Partition]: OUTBOX_INDEX_PK,
        [KEY.gsi1Sort]: event.id,
        event,
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': KEY.partition },
    },
  }));
}

/**
 * Hooks, outbox events and deliveries in the Stackyard table (layout: docs/hooks.md). Hooks and deliveries share
 * the organization's partition `HOOKS#<org>`; the outbox, due deliveries and dead letters are found through the
 * sparse gsi1 (`OUTBOX`, `HOOKDUE`, `HOOKDEAD#<org>`), and every claim is a conditional write of the base item.
 */
export class DynamoDbHookStore implements HookStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(hook: HookRecord): Promise<HookRecord> {
    const { pk, sk } = this.hookKey(hook, hook.name);
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: pk, [KEY.sort]: sk, ...hook })),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new ConflictError(`Hook '${hook.name}' already exists.`, { hook: hook.name }, { cause: error });
      }
      throw translateDynamoDbError(error, 'The hook');
    }
    return hook;
  }

  async get(scope: HookScope, name: string): Promise<HookRecord> {
    const { pk, sk } = this.hookKey(scope, name);
    const item = await this.getItem(pk, sk);
    if (!item) throw new NotFoundError(`Hook '${name}' does not exist.`);
    return pick<HookRecord>(item, HOOK_FIELDS);
  }

  async listByOrg(org: string): Promise<HookRecord[]> {
    const items = await this.queryPrefix(hooksPk(segment(org, 'organization')), 'HOOK#');
    return items.map((item) => pick<HookRecord>(item, HOOK_FIELDS));
  }

  async listForStack(org: string, stackId: string): Promise<HookRecord[]> {
    const pk = hooksPk(segment(org, 'organization'));
    const own = await this.queryPrefix(pk, `HOOK#${hookScopeKey(segment(stackId, 'stack id'))}#`);
    const shared = await this.queryPrefix(pk, `HOOK#${hookScopeKey(undefined)}#`);
    return [...shared, ...own].map((item) => pick<HookRecord>(item, HOOK_FIELDS));
  }

  async delete(scope: HookScope, name: string): Promise<void> {
    const { pk, sk } = this.hookKey(scope, name);
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [KEY.partition]: pk, [KEY.sort]: sk },
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KEY.partition },
        }),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new NotFoundError(`Hook '${name}' does not exist.`, { cause: error });
      }
      throw translateDynamoDbError(error, 'The hook');
    }
  }

  async claimEvents(now: number, claimedUntil: number, limit: number): Promise<OutboxEvent[]> {
    const candidates = await this.queryIndex(OUTBOX_INDEX_PK, undefined, limit * 2);
    const claimed: OutboxEvent[] = [];
    for (const item of candidates) {
      if (claimed.length >= limit) break;
      try {
        await this.documents.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { [KEY.partition]: item[KEY.partition], [KEY.sort]: OUTBOX_SK },
            UpdateExpression: 'SET #claimedUntil = :until',
            ConditionExpression: 'attribute_exists(#pk) AND (attribute_not_exists(#claimedUntil) OR #claimedUntil < :now)',
            ExpressionAttributeNames: { '#pk': KEY.partition, '#claimedUntil': 'claimedUntil' },
            ExpressionAttributeValues: { ':until': claimedUntil, ':now': now },
          }),
        );
        claimed.push(item.event as OutboxEvent);
      } catch (error) {
        if (error instanceof Error && error.name === 'ConditionalCheckFailedException') continue;
        throw translateDynamoDbError(error, 'The outbox event');
      }
    }
    return claimed;
  }

  async completeEvent(eventId: string): Promise<void> {
    try {
      await this.documents.send(
        new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: outboxPk(eventId), [KEY.sort]: OUTBOX_SK } }),
      );
    } catch (error) {
      throw translateDynamoDbError(error, 'The outbox event');
    }
  }

  async createDelivery(delivery: NewDelivery): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const { pk, sk } = this.deliveryKey(delivery);
    const record: DeliveryRecord = { ...delivery, status: 'pending', attempts: [], nextAttemptAt: delivery.createdAt, revision: 1 };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            [KEY.partition]: pk,
            [KEY.sort]: sk,
            [KEY.gsi1Partition]: DUE_INDEX_PK,
            [KEY.gsi1Sort]: dueSortKey(delivery.createdAt, sk),
            ...record,
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KEY.partition },
        }),
      );
      return { delivery: record, created: true };
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        return { delivery: await this.getDelivery(delivery), created: false };
      }
      throw translateDynamoDbError(error, 'The delivery');
    }
  }

  async getDelivery(ref: DeliveryRef): Promise<DeliveryRecord> {
    const { pk, sk } = this.deliveryKey(ref);
    const item = await this.getItem(pk, sk);
    if (!item) throw new NotFoundError(`Delivery '${ref.id}' does not exist.`);
    return pick<DeliveryRecord>(item, DELIVERY_FIELDS);
  }

  async listDeliveries(scope: HookScope, name: string, limit: number): Promise<DeliveryRecord[]> {
    const pk = hooksPk(segment(scope.org, 'organization'));
    const prefix = deliveryPrefix(hookScopeKey(scope.stackId), segment(name, 'hook name'));
    const items = await this.queryPrefix(pk, prefix, limit, false);
    return items.map((item) => pick<DeliveryRecord>(item, DELIVERY_FIELDS));
  }

  async dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]> {
    const items = await this.queryIndex(DUE_INDEX_PK, dueSortKey(now, '~'), limit * 2);
    return items
      .map((item) => pick<DeliveryRecord>(item, DELIVERY_FIELDS))
      .filter((d) => d.status === 'pending' && (d.claimedUntil === undefined || d.claimedUntil < now))
      .slice(0, limit);
  }

  async claimDelivery(
    ref: DeliveryRef,
    expectedRevision: number,
    now: number,
    claimedUntil: number,
  ): Promise<DeliveryRecord | undefined> {
    const { pk, sk } = this.deliveryKey(ref);
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: pk, [KEY.sort]: sk },
          UpdateExpression: 'SET #claimedUntil = :until, #revision = #revision + :one',
          ConditionExpression:
            'attribute_exists(#pk) AND #revision = :expected AND #status = :pending AND ' +
            '(attribute_not_exists(#claimedUntil) OR #claimedUntil < :now)',
          ExpressionAttributeNames: {
            '#pk': KEY.partition,
            '#claimedUntil': 'claimedUntil',
            '#revision': 'revision',
            '#status': 'status',
          },
          ExpressionAttributeValues: { ':until': claimedUntil, ':one': 1, ':expected': expectedRevision, ':pending': 'pending', ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return pick<DeliveryRecord>(Attributes ?? {}, DELIVERY_FIELDS);
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      throw translateDynamoDbError(error, 'The delivery');
    }
  }

  async recordAttempt(
    ref: DeliveryRef,
    expectedRevision: number,
    attempt: DeliveryAttempt,
    outcome: DeliveryOutcome,
  ): Promise<DeliveryRecord> {
    const { pk, sk } = this.deliveryKey(ref);
    const names: Record<string, string> = {
      '#pk': KEY.partition,
      '#revision': 'revision',
      '#status': 'status',
      '#attempts': 'attempts',
      '#claimedUntil': 'claimedUntil',
      '#nextAttemptAt': 'nextAttemptAt',
      '#g': KEY.gsi1Partition,
      '#gs': KEY.gsi1Sort,
    };
    const values: Record<string, unknown> = {
      ':one': 1,
      ':expected': expectedRevision,
      ':status': outcome.status,
      ':attempt': [attempt],
    };
    const sets = ['#revision = #revision + :one', '#status = :status', '#attempts = list_append(#attempts, :attempt)'];
    const removes = ['#claimedUntil'];
    if (outcome.status === 'pending') {
      delete names['#g'];
      sets.push('#nextAttemptAt = :next', '#gs = :gs');
      values[':next'] = outcome.nextAttemptAt;
      values[':gs'] = dueSortKey(outcome.nextAttemptAt, sk);
    } else if (outcome.status === 'dead') {
      sets.push('#g = :dead', '#gs = :gs');
      removes.push('#nextAttemptAt');
      values[':dead'] = deadLettersPk(ref.org);
      values[':gs'] = ref.id;
    } else {
      removes.push('#nextAttemptAt', '#g', '#gs');
    }
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: pk, [KEY.sort]: sk },
          UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
          ConditionExpression: 'attribute_exists(#pk) AND #revision = :expected',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return pick<DeliveryRecord>(Attributes ?? {}, DELIVERY_FIELDS);
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new ConflictError(`Delivery ${ref.id} was changed by another dispatcher.`, { expectedRevision }, { cause: error });
      }
      throw translateDynamoDbError(error, 'The delivery');
    }
  }

  async listDeadLetters(org: string, limit: number): Promise<DeliveryRecord[]> {
    const items = await this.queryIndex(deadLettersPk(segment(org, 'organization')), undefined, limit, false);
    return items.map((item) => pick<DeliveryRecord>(item, DELIVERY_FIELDS));
  }

  private hookKey(scope: HookScope, name: string): { pk: string; sk: string } {
    const org = segment(scope.org, 'organization');
    if (scope.stackId !== undefined) segment(scope.stackId, 'stack id');
    return { pk: hooksPk(org), sk: hookSk(hookScopeKey(scope.stackId), segment(name, 'hook name')) };
  }

  private deliveryKey(ref: DeliveryRef): { pk: string; sk: string } {
    const { pk } = this.hookKey(ref, ref.hook);
    return { pk, sk: `${deliveryPrefix(hookScopeKey(ref.stackId), ref.hook)}${segment(ref.id, 'delivery id')}` };
  }

  private async getItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { Item } = await this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: sk }, ConsistentRead: true }),
      );
      return Item;
    } catch (error) {
      throw translateDynamoDbError(error, 'The hook');
    }
  }

  private async queryPrefix(pk: string, prefix: string, limit?: number, ascending = true): Promise<Record<string, unknown>[]> {
    try {
      return await queryByPrefix(this.documents, this.table, pk, prefix, { limit, ascending });
    } catch (error) {
      throw translateDynamoDbError(error, 'The hook listing');
    }
  }

  /** gsi1 partition `pk` (sort keys up to `upTo` when given), in sort order. */
  private async queryIndex(pk: string, upTo: string | undefined, limit: number, ascending = true): Promise<Record<string, unknown>[]> {
    try {
      const page = await this.documents.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: STACKS_BY_NAME_INDEX,
          KeyConditionExpression: upTo === undefined ? '#g = :g' : '#g = :g AND #gs <= :upTo',
          ExpressionAttributeNames: { '#g': KEY.gsi1Partition, ...(upTo === undefined ? {} : { '#gs': KEY.gsi1Sort }) },
          ExpressionAttributeValues: { ':g': pk, ...(upTo === undefined ? {} : { ':upTo': upTo }) },
          ScanIndexForward: ascending,
          Limit: limit,
        }),
      );
      return page.Items ?? [];
    } catch (error) {
      throw translateDynamoDbError(error, 'The hook queue');
    }
  }
}
