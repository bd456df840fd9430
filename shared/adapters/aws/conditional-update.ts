import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../../core/errors.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import { outboxPuts } from './dynamodb-hook-store.js';
import { translateDynamoDbError } from './errors.js';

/** The cancellation reason codes of a failed transaction, in item order; `undefined` for any other error. */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}

/** A write that lost a race with another transaction on the same items is a conflict the caller may retry. */
export function translateWriteError(error: unknown, what: string): unknown {
  if (cancellationCodes(error)?.includes('TransactionConflict')) {
    return new ConflictError(`${what} is being changed by another request; retry.`, {}, { cause: error });
  }
  return translateDynamoDbError(error, what);
}

/** One UpdateItem and the condition it is written under. */
export interface ConditionalUpdate {
  key: Record<string, unknown>;
  expression: string;
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** How a store reads its records, and what it says when the condition fails. */
export interface ConditionalUpdateHandling<T> {
  /** `The stack`, `The update`: for error messages. */
  what: string;
  toRecord(item: Record<string, unknown>): T;
  /** Reads the record again (a transaction returns no attributes). */
  readBack(): Promise<T>;
  /** The error for a failed condition, given the record as it is now (`undefined`: it does not exist). */
  conditionFailed(current: T | undefined, cause: unknown): Error;
}

/**
 * Writes `update` and returns the new record. With outbox events it is one transaction with their puts, so the
 * change and its events commit together or not at all; without, a plain UpdateItem that returns the new item, and on
 * a failed condition the item as it was, so no second read is needed.
 */
export async function updateWithEvents<T>(
  documents: DynamoDBDocumentClient,
  table: string,
  update: ConditionalUpdate,
  events: readonly OutboxEvent[] | undefined,
  handling: ConditionalUpdateHandling<T>,
): Promise<T> {
  const item = {
    TableName: table,
    Key: update.key,
    UpdateExpression: update.expression,
    ConditionExpression: update.condition,
    ExpressionAttributeNames: update.names,
    ExpressionAttributeValues: update.values,
  };
  if (events && events.length > 0) {
    try {
      await documents.send(new TransactWriteCommand({ TransactItems: [{ Update: item }, ...outboxPuts(table, events)] }));
    } catch (error) {
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
        throw handling.conditionFailed(await handling.readBack().catch(() => undefined), error);
      }
      throw translateWriteError(error, handling.what);
    }
    return handling.readBack();
  }
  try {
    const { Attributes } = await documents.send(
      new UpdateCommand({ ...item, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    return handling.toRecord(Attributes ?? {});
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
      const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
      throw handling.conditionFailed(raw ? handling.toRecord(unmarshall(raw)) : undefined, error);
    }
    throw translateWriteError(error, handling.what);
  }
}
