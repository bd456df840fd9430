import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A scan's filter: the expression and its names and values, as `ScanCommand` takes them. */
export interface ScanFilter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * Every item of the table that passes `filter`, page by page, strongly consistent. Only for the backfills of
 * `stackyard admin upgrade`, which read the whole table once with the operator's credentials: no function scans
 * (the functions' role has no `dynamodb:Scan`; infra/test/stackyard-stack.test.ts). SDK errors are the caller's to
 * translate.
 */
export async function* scanItems(documents: DynamoDBDocumentClient, table: string, filter: ScanFilter): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: filter.expression,
        ExpressionAttributeNames: filter.names,
        ExpressionAttributeValues: filter.values,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
