import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { errorName } from './errors.js';
import { KEY } from './table.js';

export interface PrefixQuery {
  /** Stop once this many items are read. */
  limit?: number;
  /** Sort-key order (default ascending). */
  ascending?: boolean;
  /** Read only the keys (for deletes). */
  keysOnly?: boolean;
}

/**
 * Every item of partition `pk` whose sort key starts with `prefix`, in sort-key order, following pages; strongly
 * consistent, as the stores' reads are. SDK errors are the caller's to translate.
 */
export async function queryByPrefix(
  documents: DynamoDBDocumentClient,
  table: string,
  pk: string,
  prefix: string,
  { limit, ascending = true, keysOnly = false }: PrefixQuery = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
        ScanIndexForward: ascending,
        ExclusiveStartKey: startKey,
        ...(keysOnly ? { ProjectionExpression: '#pk, #sk' } : {}),
        ...(limit !== undefined ? { Limit: limit - items.length } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && (limit === undefined || items.length < limit));
  return items;
}

/** An item as its store's record: the table's key attributes left out. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...rest } = item;
  return rest as T;
}

/** Whether a write failed on its condition (a single write's or a transaction's). */
export function failedOnCondition(error: unknown): boolean {
  const name = errorName(error);
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}
