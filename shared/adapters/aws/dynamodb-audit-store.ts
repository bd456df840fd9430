import { DeleteCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, UnavailableError } from '../../core/errors.js';
import {
  checkAuditLimit as checkLimit,
  mergeAuditPages,
  type AuditEntry,
  type AuditIntent,
  type AuditPage,
  type AuditQuery,
  type AuditStore,
} from '../../ports/audit-store.js';
import { cancellationCodes } from './conditional-update.js';
import { errorName, translateDynamoDbError } from './errors.js';
import { auditIntentPk, auditPk, auditSk, auditTallyPk } from './keys.js';
import { KEY, putNew } from './table.js';

const ID = /^[0-9]{13}-[0-9a-f]{16}$/;
/** A tally write gives up after this many conditional steps, each lost only to another writer of the same tally. */
const MAX_TALLY_STEPS = 30;
const TOKEN_VERSION = 1;

/**
 * Audit entries in the Stackyard table: one partition per organization, sorted by the time-ordered id. Entries are
 * written with a create-only condition and this adapter never updates or deletes one; docs/security.md shows the IAM
 * condition that makes the table refuse it too. Intents live in a partition of their own (`AUDITINTENT#<org>`), and
 * a commit is one transaction: the entry put (create-only) and the intent deleted together. Refusal tallies live in a
 * partition of their own too (`AUDITTALLY#<org>`), each counted by one UpdateItem (ADD), and are listed with the log.
 */
export class DynamoDbAuditStore implements AuditStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async append(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: auditPk(entry.org), [KEY.sort]: auditSk(entry.id), ...entry })),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new ConflictError(`Audit entry ${entry.id} already exists.`, {}, { cause: error });
      }
      throw translateDynamoDbError(error, 'The audit entry');
    }
  }

  /**
   * Each step is one conditional write, and each step's condition fails only if another writer changed the tally
   * since the last one, so the loop ends: (1) the tally exists and `lastSeen` is not later: add 1, move `lastSeen`;
   * (2) it does not exist: create it from `entry` with count 1; (3) it exists with a later `lastSeen` (a concurrent
   * refusal landed first): add 1 only. So concurrent writers of one id never lose a count, never make two items,
   * `lastSeen` is the latest refusal, and every other field is the first writer's.
   */
  async tally(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    const { count: _count, lastSeen: _lastSeen, ...first } = entry;
    const Key = { [KEY.partition]: auditTallyPk(entry.org), [KEY.sort]: auditSk(entry.id) };
    const names = { '#pk': KEY.partition, '#count': 'count', '#lastSeen': 'lastSeen' };
    const values = { ':one': 1, ':lastSeen': entry.time };
    const steps: (() => Promise<unknown>)[] = [
      () =>
        this.documents.send(new UpdateCommand({
          TableName: this.table,
          Key,
          UpdateExpression: 'SET #lastSeen = :lastSeen ADD #count :one',
          ConditionExpression: 'attribute_exists(#pk) AND #lastSeen <= :lastSeen',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        })),
      () => this.documents.send(new PutCommand(putNew(this.table, { ...Key, ...first, count: 1, lastSeen: entry.time }))),
      () =>
        this.documents.send(new UpdateCommand({
          TableName: this.table,
          Key,
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_exists(#pk) AND #lastSeen > :lastSeen',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        })),
    ];
    for (let attempt = 0; attempt < MAX_TALLY_STEPS; attempt += 1) {
      try {
        await steps[attempt % steps.length]!();
        return;
      } catch (error) {
        if (errorName(error) !== 'ConditionalCheckFailedException') throw translateDynamoDbError(error, 'The audit tally');
      }
    }
    throw new UnavailableError('The audit tally kept changing under its writes (a burst of refusals); try again shortly.');
  }

  async begin(intent: AuditIntent): Promise<void> {
    checkId(intent.entry.id);
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: auditIntentPk(intent.entry.org), [KEY.sort]: auditSk(intent.entry.id), ...intent })),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') {
        throw new ConflictError(`Audit intent ${intent.entry.id} already exists.`, {}, { cause: error });
      }
      throw translateDynamoDbError(error, 'The audit intent');
    }
  }

  async commit(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    const removeIntent = { TableName: this.table, Key: { [KEY.partition]: auditIntentPk(entry.org), [KEY.sort]: auditSk(entry.id) } };
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: putNew(this.table, { [KEY.partition]: auditPk(entry.org), [KEY.sort]: auditSk(entry.id), ...entry }),
            },
            { Delete: removeIntent },
          ],
        }),
      );
    } catch (error) {
      if (!entryExists(error)) throw translateDynamoDbError(error, 'The audit entry');
      // Published already (by recovery, or a commit whose answer was lost): the entry stays, the intent goes.
      await this.discard(entry);
    }
  }

  async discard(entry: AuditEntry): Promise<void> {
    checkId(entry.id);
    try {
      await this.documents.send(
        new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: auditIntentPk(entry.org), [KEY.sort]: auditSk(entry.id) } }),
      );
    } catch (error) {
      throw translateDynamoDbError(error, 'The audit intent');
    }
  }

  async recover(org: string, now: number): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    try {
      do {
        const page = await this.documents.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': KEY.partition },
            ExpressionAttributeValues: { ':pk': auditIntentPk(org) },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const intent = item as unknown as AuditIntent;
          if (intent.deadline < now) await this.commit({ ...intent.entry, outcome: 'unknown' });
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    } catch (error) {
      throw translateDynamoDbError(error, 'The audit intents');
    }
  }

  /** Newest first, between the time bounds, filters applied by DynamoDB before the page is cut here. */
  async list(query: AuditQuery): Promise<AuditPage> {
    const limit = checkLimit(query.limit);
    const [entries, tallies] = await Promise.all([
      this.listPartition(auditPk(query.org), query, limit),
      this.listPartition(auditTallyPk(query.org), query, limit),
    ]);
    return mergeAuditPages(entries.entries, tallies.entries, limit, entries.more || tallies.more, encodeToken);
  }

  /** Up to `limit` items of one partition, newest first; `more`: the partition has another after them. */
  private async listPartition(pk: string, query: AuditQuery, limit: number): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const low = auditSk(`${pad(query.since ?? 0)}`);
    const high = query.continuationToken !== undefined ? auditSk(decodeToken(query.continuationToken)) : auditSk(`${pad(query.before ?? 9_999_999_999_999)}`);
    const names: Record<string, string> = { '#pk': KEY.partition, '#sk': KEY.sort };
    const values: Record<string, unknown> = { ':pk': pk, ':low': low, ':high': high };
    const filters: string[] = [];
    for (const field of ['actor', 'event', 'target'] as const) {
      if (query[field] === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = query[field];
      filters.push(`#${field} = :${field}`);
    }
    const entries: AuditEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    try {
      do {
        const page = await this.documents.send(
          new QueryCommand({
            TableName: this.table,
            // The upper bound is exclusive: `:high` itself (the last id of the previous page, or `before`) is left out.
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
            ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ScanIndexForward: false,
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) {
          if (item[KEY.sort] === high) continue;
          const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...entry } = item;
          if (entries.length === limit) return { entries, more: true };
          entries.push(entry as AuditEntry);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    } catch (error) {
      throw translateDynamoDbError(error, 'The audit log');
    }
    return { entries, more: false };
  }
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new InvalidInputError('Invalid audit entry id.');
}

/** The transaction was cancelled because the entry's create-only put found it there. */
function entryExists(error: unknown): boolean {
  return cancellationCodes(error)?.[0] === 'ConditionalCheckFailed';
}

function pad(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(13, '0');
}

function encodeToken(id: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, id })).toString('base64url');
}

function decodeToken(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; id?: unknown };
    if (parsed.v === TOKEN_VERSION && typeof parsed.id === 'string' && ID.test(parsed.id)) return parsed.id;
  } catch {
    // fall through to the typed error
  }
  throw new InvalidInputError('The continuation token is not valid for this listing: list again without it.');
}
