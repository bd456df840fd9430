import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * The single DynamoDB table behind the AWS adapters (design and reasons: docs/storage-aws.md). The CDK stack in
 * infra/ mirrors this definition; change both together.
 *
 * | item            | pk                        | sk                   | gsi1pk           | gsi1sk              |
 * |-----------------|---------------------------|----------------------|------------------|---------------------|
 * | stack           | `STACK#<id>`              | `STACK`              | `STACKS#<org>`   | `<project>#<stack>` |
 * | stack name      | `NAME#<org>/<proj>/<stk>` | `NAME`               |                  |                     |
 * | update          | `STACK#<id>`              | `UPDATE#<updateId>`  |                  |                     |
 * | history entry   | `STACK#<id>`              | `HISTORY#<version>`  |                  |                     |
 * | exclusive lease | `STACK#<id>`              | `LEASE`              |                  |                     |
 * | dry-run token   | `STACK#<id>`              | `TOKEN#<updateId>`   |                  |                     |
 * | user            | `USER#<login>`            | `USER`               |                  |                     |
 * | membership      | `USER#<login>`            | `MEMBER#<org>`       |                  |                     |
 * | api token (by user) | `USER#<login>`        | `APITOKEN#<id>`      |                  |                     |
 * | api token (by hash) | `APITOKEN#<sha256>`   | `APITOKEN`           |                  |                     |
 * | organization    | `ORG#<name>`              | `ORG`                |                  |                     |
 */
export const KEY = {
  partition: 'pk',
  sort: 'sk',
  gsi1Partition: 'gsi1pk',
  gsi1Sort: 'gsi1sk',
} as const;

/**
 * A put that only creates: the input of a `PutCommand` or a transaction's `Put` that fails its condition when an
 * item with the same key exists, so nothing is ever overwritten by it.
 */
export function putNew(table: string, item: Record<string, unknown>) {
  return {
    TableName: table,
    Item: item,
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': KEY.partition },
  };
}

/** Name of the global secondary index listing stacks by organization, then project and stack name. */
export const STACKS_BY_NAME_INDEX = 'gsi1';

/** Epoch-seconds attribute DynamoDB's TTL sweeper reads (cleanup only; expiry is always checked in conditions). */
export const TTL_ATTRIBUTE = 'ttl';

/** CreateTable input for the Stackyard table: on-demand, string `pk`/`sk`, one GSI projecting every attribute. */
export function stackyardTableDefinition(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: KEY.partition, AttributeType: 'S' },
      { AttributeName: KEY.sort, AttributeType: 'S' },
      { AttributeName: KEY.gsi1Partition, AttributeType: 'S' },
      { AttributeName: KEY.gsi1Sort, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: KEY.partition, KeyType: 'HASH' },
      { AttributeName: KEY.sort, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: STACKS_BY_NAME_INDEX,
        KeySchema: [
          { AttributeName: KEY.gsi1Partition, KeyType: 'HASH' },
          { AttributeName: KEY.gsi1Sort, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

/**
 * Creates the table if it does not exist, waits until it is active and enables TTL on {@link TTL_ATTRIBUTE}.
 * Used by tests and by `stackyard serve` against a local DynamoDB; deployed stacks get the table from CDK.
 */
export async function createStackyardTable(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(stackyardTableDefinition(name)));
  } catch (error) {
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: name });
  const table = await client.send(new DescribeTableCommand({ TableName: name }));
  if (table.Table?.TableStatus !== 'ACTIVE') throw new Error(`Table ${name} is ${table.Table?.TableStatus}.`);
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  } catch (error) {
    // Raised when TTL is already enabled on this table.
    if (!/already enabled/i.test((error as Error).message)) throw error;
  }
}
