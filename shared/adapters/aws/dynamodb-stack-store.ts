/**
 * The stack store on DynamoDB: every write is a conditional write or a transaction of the stack item with its name
 * item (and outbox events). Over 400 lines, kept whole on purpose: the item layout, checks and cursor already live in
 * dynamodb-stack-items.ts, and what remains is the store's writes, which share their condition helpers
 * (conditionalUpdate, revisionError, translate); splitting those from each other would spread one set of rules.
 */
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { formatStackRef, validateOrgName, validateProjectName, validateStackRef, validateTags, type StackRef } from '../../core/names.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import type { ListStacksQuery, NewStack, StackChanges, StackPage, StackRecord, StackStore } from '../../ports/stack-store.js';
import { MAX_GRANTS, validateCreator, validateGrant, validateGrants, type StackPermission } from '../../core/kernel/permissions.js';
import { cancellationCodes, translateWriteError, updateWithEvents } from './conditional-update.js';
import { errorName, translateDynamoDbError } from './errors.js';
import { outboxPuts } from './dynamodb-hook-store.js';
import { NAME_SK, STACK_SK, namePk, stackPk, stackSortKey, stacksByOrg } from './keys.js';
import { KEY, putNew, STACKS_BY_NAME_INDEX } from './table.js';
import {
  AT_REVISION,
  checkChanges,
  decodeCursor,
  type ListCursor,
  DEFAULT_LIMIT,
  encodeCursor,
  MAX_LIMIT,
  NAME_IS_MINE,
  requireStackId,
  toRecord,
  TOKEN_VERSION,
  updateExpression,
} from './dynamodb-stack-items.js';


/** Stack records and their name items in the Stackyard table. */
export class DynamoDbStackStore implements StackStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(stack: NewStack, events?: readonly OutboxEvent[]): Promise<StackRecord> {
    const ref = validateStackRef(stack);
    const record: StackRecord = {
      id: requireStackId(stack.id),
      ...ref,
      version: 0,
      revision: 1,
      tags: validateTags(stack.tags ?? {}),
      createdAt: stack.createdAt,
    };
    if (typeof stack.createdAt !== 'number' || !Number.isFinite(stack.createdAt)) {
      throw new InvalidInputError('Invalid createdAt: expected epoch milliseconds.');
    }
    const optional = checkChanges({ encryptedDataKey: stack.encryptedDataKey, currentCheckpoint: stack.currentCheckpoint, configEnvironment: stack.configEnvironment });
    if (optional.encryptedDataKey) record.encryptedDataKey = optional.encryptedDataKey;
    if (optional.currentCheckpoint) record.currentCheckpoint = optional.currentCheckpoint;
    if (optional.configEnvironment) record.configEnvironment = optional.configEnvironment;
    if (stack.createdBy !== undefined) record.createdBy = validateCreator(stack.createdBy);
    if (stack.grants !== undefined) record.grants = validateGrants(stack.grants);
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: putNew(this.table, this.nameItem(ref, record.id)),
            },
            {
              Put: putNew(this.table, this.stackItem(record)),
            },
            ...outboxPuts(this.table, events),
          ],
        }),
      );
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') {
        throw new ConflictError(`Stack '${formatStackRef(ref)}' already exists.`, { stack: formatStackRef(ref) }, { cause: error });
      }
      if (codes?.[1] === 'ConditionalCheckFailed') {
        throw new ConflictError(`A stack with id ${record.id} already exists.`, { id: record.id }, { cause: error });
      }
      throw this.translate(error, 'The stack');
    }
    return record;
  }

  async get(ref: StackRef): Promise<StackRecord> {
    const { org, project, stack } = validateStackRef(ref);
    const name = await this.getItem(namePk(org, project, stack), NAME_SK);
    const notFound = () => new NotFoundError(`Stack '${formatStackRef(ref)}' does not exist.`);
    if (!name) throw notFound();
    const item = await this.getItem(stackPk(String(name.stackId)), STACK_SK);
    if (!item) throw notFound();
    return toRecord(item);
  }

  async getById(id: string): Promise<StackRecord> {
    const item = await this.getItem(stackPk(requireStackId(id)), STACK_SK);
    if (!item) throw new NotFoundError(`Stack ${id} does not exist.`);
    return toRecord(item);
  }

  async list(query: ListStacksQuery): Promise<StackPage> {
    const org = validateOrgName(query.org);
    if (query.project !== undefined) validateProjectName(query.project);
    if (query.tagName !== undefined) validateTags({ [query.tagName]: query.tagValue ?? '' });
    if (query.tagName === undefined && query.tagValue !== undefined) {
      throw new InvalidInputError('A tag value filter needs a tag name.');
    }
    const limit = query.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidInputError(`Invalid page size ${limit}: expected 1 to ${MAX_LIMIT}.`);
    }
    let startKey = query.continuationToken === undefined ? undefined : decodeCursor(query.continuationToken, query);

    const names: Record<string, string> = { '#g': KEY.gsi1Partition };
    const values: Record<string, unknown> = { ':g': stacksByOrg(org) };
    let keyCondition = '#g = :g';
    if (query.project !== undefined) {
      names['#s'] = KEY.gsi1Sort;
      values[':p'] = `${query.project}#`;
      keyCondition += ' AND begins_with(#s, :p)';
    }
    let filter: string | undefined;
    if (query.tagName !== undefined) {
      names['#tags'] = 'tags';
      names['#tag'] = query.tagName;
      if (query.tagValue === undefined) {
        filter = 'attribute_exists(#tags.#tag)';
      } else {
        values[':tagValue'] = query.tagValue;
        filter = '#tags.#tag = :tagValue';
      }
    }

    // Collect one match more than asked for: if it exists there is a next page, and the cursor is the key of the
    // last stack returned, so the last page never carries a token.
    const found: Record<string, unknown>[] = [];
    try {
      do {
        const page = await this.documents.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: STACKS_BY_NAME_INDEX,
            KeyConditionExpression: keyCondition,
            FilterExpression: filter,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ExclusiveStartKey: startKey,
            Limit: limit + 1 - found.length,
          }),
        );
        found.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey as Record<string, string> | undefined;
      } while (startKey && found.length <= limit);
    } catch (error) {
      throw this.translate(error, 'The stack listing');
    }

    const stacks = found.slice(0, limit).map(toRecord);
    if (found.length <= limit) return { stacks };
    const last = found[limit - 1];
    const key = Object.fromEntries(
      [KEY.partition, KEY.sort, KEY.gsi1Partition, KEY.gsi1Sort].map((field) => [field, String(last[field])]),
    );
    const cursor: ListCursor = {
      v: TOKEN_VERSION,
      org,
      project: query.project,
      tagName: query.tagName,
      tagValue: query.tagValue,
      key,
    };
    return { stacks, continuationToken: encodeCursor(cursor) };
  }

  async update(
    id: string,
    expectedRevision: number,
    changes: StackChanges,
    events?: readonly OutboxEvent[],
  ): Promise<StackRecord> {
    requireStackId(id);
    this.checkRevision(expectedRevision);
    const { expression, names, values } = updateExpression(checkChanges(changes));
    return updateWithEvents(
      this.documents,
      this.table,
      {
        key: { [KEY.partition]: stackPk(id), [KEY.sort]: STACK_SK },
        expression,
        condition: AT_REVISION,
        names: { ...names, '#pk': KEY.partition },
        values: { ...values, ':expectedRevision': expectedRevision },
      },
      events,
      {
        what: 'The stack',
        toRecord,
        readBack: () => this.getById(id),
        conditionFailed: (current, cause) => this.revisionError(id, expectedRevision, current, cause),
      },
    );
  }

  async rename(id: string, expectedRevision: number, to: StackRef, changes: StackChanges = {}): Promise<StackRecord> {
    requireStackId(id);
    this.checkRevision(expectedRevision);
    const target = validateStackRef(to);
    const checked = checkChanges(changes);
    const current = await this.getById(id);
    if (current.revision !== expectedRevision) throw this.revisionError(id, expectedRevision, current);
    if (target.org !== current.org) {
      throw new InvalidInputError(`A stack cannot move to another organization ('${current.org}' to '${target.org}').`);
    }
    if (target.project === current.project && target.stack === current.stack) {
      throw new ConflictError(`Stack '${formatStackRef(target)}' already has that name.`, { stack: formatStackRef(target) });
    }
    const { expression, names, values } = updateExpression(checked, {
      project: target.project,
      stack: target.stack,
      [KEY.gsi1Sort]: stackSortKey(target.project, target.stack),
    });
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: putNew(this.table, this.nameItem(target, id)),
            },
            {
              Update: {
                TableName: this.table,
                Key: { [KEY.partition]: stackPk(id), [KEY.sort]: STACK_SK },
                UpdateExpression: expression,
                ConditionExpression: AT_REVISION,
                ExpressionAttributeNames: { ...names, '#pk': KEY.partition },
                ExpressionAttributeValues: { ...values, ':expectedRevision': expectedRevision },
              },
            },
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: namePk(current.org, current.project, current.stack), [KEY.sort]: NAME_SK },
                ConditionExpression: NAME_IS_MINE,
                ExpressionAttributeNames: { '#stackId': 'stackId' },
                ExpressionAttributeValues: { ':stackId': id },
              },
            },
          ],
        }),
      );
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') {
        throw new ConflictError(`Stack '${formatStackRef(target)}' already exists.`, { stack: formatStackRef(target) }, { cause: error });
      }
      if (codes && codes.some((code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict')) {
        throw this.revisionError(id, expectedRevision, await this.getById(id).catch(() => undefined), error);
      }
      throw this.translate(error, 'The stack');
    }
    return this.getById(id);
  }

  async delete(id: string, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<void> {
    requireStackId(id);
    this.checkRevision(expectedRevision);
    const current = await this.getById(id);
    if (current.revision !== expectedRevision) throw this.revisionError(id, expectedRevision, current);
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: stackPk(id), [KEY.sort]: STACK_SK },
                ConditionExpression: AT_REVISION,
                ExpressionAttributeNames: { '#pk': KEY.partition, '#revision': 'revision' },
                ExpressionAttributeValues: { ':expectedRevision': expectedRevision },
              },
            },
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: namePk(current.org, current.project, current.stack), [KEY.sort]: NAME_SK },
                ConditionExpression: NAME_IS_MINE,
                ExpressionAttributeNames: { '#stackId': 'stackId' },
                ExpressionAttributeValues: { ':stackId': id },
              },
            },
            ...outboxPuts(this.table, events),
          ],
        }),
      );
    } catch (error) {
      if (cancellationCodes(error)) {
        throw this.revisionError(id, expectedRevision, await this.getById(id).catch(() => undefined), error);
      }
      throw this.translate(error, 'The stack');
    }
  }

  /**
   * One update expression on the grants map: `SET grants.<subject>` (or `REMOVE`) with the revision bumped, on the
   * condition that the stack exists, has a grants map and stays within MAX_GRANTS. A stack without a map yet (most:
   * the creator's admin comes from `createdBy`) gets a whole one, on the condition that it still has none; losing
   * that race to another first grant only means the in-place write is tried again, and then succeeds.
   */
  async setGrant(id: string, subject: string, permission: StackPermission | null): Promise<StackRecord> {
    requireStackId(id);
    validateGrant(subject, permission);
    const key = { [KEY.partition]: stackPk(id), [KEY.sort]: STACK_SK };
    const names = { '#pk': KEY.partition, '#grants': 'grants', '#revision': 'revision', '#s': subject };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const inPlace =
        permission === null
          ? { UpdateExpression: 'SET #revision = #revision + :one REMOVE #grants.#s', ConditionExpression: 'attribute_exists(#pk) AND attribute_type(#grants, :map)', values: {} }
          : {
              UpdateExpression: 'SET #grants.#s = :p, #revision = #revision + :one',
              ConditionExpression: 'attribute_exists(#pk) AND attribute_type(#grants, :map) AND (size(#grants) < :max OR attribute_exists(#grants.#s))',
              values: { ':p': permission, ':max': MAX_GRANTS },
            };
      const written = await this.conditionalUpdate(key, inPlace.UpdateExpression, inPlace.ConditionExpression, names, { ':one': 1, ':map': 'M', ...inPlace.values });
      if (written) return written;
      const current = await this.getById(id);
      if (current.grants !== undefined) {
        if (permission !== null && Object.keys(current.grants).length >= MAX_GRANTS) {
          throw new InvalidInputError(`A stack can have at most ${MAX_GRANTS} grants.`);
        }
        continue;
      }
      if (permission === null) return current;
      const whole = await this.conditionalUpdate(
        key,
        'SET #grants = :grants, #revision = #revision + :one',
        'attribute_exists(#pk) AND attribute_not_exists(#grants)',
        { '#pk': KEY.partition, '#grants': 'grants', '#revision': 'revision' },
        { ':one': 1, ':grants': { [subject]: permission } },
      );
      if (whole) return whole;
    }
    throw new ConflictError(`The grants of stack ${id} kept changing shape while one was set: retry.`);
  }

  /** An update returning the new record, or `undefined` when its condition did not hold. */
  private async conditionalUpdate(
    key: Record<string, unknown>,
    expression: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<StackRecord | undefined> {
    try {
      const result = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(result.Attributes ?? {});
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') return undefined;
      throw translateDynamoDbError(error, 'The stack');
    }
  }

  private checkRevision(revision: number): void {
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
      throw new InvalidInputError('Invalid expected revision: expected a whole number.');
    }
  }

  private revisionError(id: string, expectedRevision: number, current: StackRecord | undefined, cause?: unknown): Error {
    if (!current) return new NotFoundError(`Stack ${id} does not exist.`, { cause });
    return new ConflictError(
      `Stack '${formatStackRef(current)}' was changed by someone else (revision ${current.revision}, expected ` +
        `${expectedRevision}); read it again and retry.`,
      { id, expectedRevision, actualRevision: current.revision },
      { cause },
    );
  }

  private nameItem(ref: StackRef, stackId: string): Record<string, unknown> {
    return { [KEY.partition]: namePk(ref.org, ref.project, ref.stack), [KEY.sort]: NAME_SK, stackId };
  }

  private stackItem(record: StackRecord): Record<string, unknown> {
    return {
      [KEY.partition]: stackPk(record.id),
      [KEY.sort]: STACK_SK,
      [KEY.gsi1Partition]: stacksByOrg(record.org),
      [KEY.gsi1Sort]: stackSortKey(record.project, record.stack),
      ...record,
    };
  }

  private async getItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { Item } = await this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: sk }, ConsistentRead: true }),
      );
      return Item;
    } catch (error) {
      throw this.translate(error, 'The stack');
    }
  }

  private translate(error: unknown, what: string): unknown {
    return translateWriteError(error, what);
  }
}
