import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tokenTtl } from './dynamodb-identity-items.js';
import { translateDynamoDbError } from './errors.js';
import { scanItems } from './table-scan.js';
import { KEY, TTL_ATTRIBUTE } from './table.js';

/** What one backfill did: expiring token items read without a TTL attribute, and those it gave one. */
export interface TokenTtlBackfill {
  tokens: number;
  updated: number;
}

/**
 * Gives every expiring API token item stored before tokens had a TTL (both the by-hash and the by-owner copy) the
 * TTL attribute, so DynamoDB removes those too once they expire. One scan of the table, so it is run once by
 * `stackyard admin upgrade`, never on a request. Safe to run again and while the service runs: each write is
 * conditional on the item still being there with the same expiry and no TTL yet.
 */
export async function backfillTokenTtl(documents: DynamoDBDocumentClient, table: string): Promise<TokenTtlBackfill> {
  const result: TokenTtlBackfill = { tokens: 0, updated: 0 };
  const expiringTokens = {
    expression:
      '(begins_with(#pk, :token) OR (begins_with(#pk, :user) AND begins_with(#sk, :token))) AND ' +
      'attribute_exists(#expiresAt) AND attribute_not_exists(#ttl)',
    names: { '#pk': KEY.partition, '#sk': KEY.sort, '#expiresAt': 'expiresAt', '#ttl': TTL_ATTRIBUTE },
    values: { ':token': 'APITOKEN', ':user': 'USER#' },
  };
  try {
    for await (const item of scanItems(documents, table, expiringTokens)) {
      if (typeof item.expiresAt !== 'number') continue;
      result.tokens += 1;
      if (await setTtl(documents, table, item, item.expiresAt)) result.updated += 1;
    }
  } catch (error) {
    throw translateDynamoDbError(error, 'The token TTL backfill');
  }
  return result;
}

async function setTtl(documents: DynamoDBDocumentClient, table: string, item: Record<string, unknown>, expiresAt: number): Promise<boolean> {
  try {
    await documents.send(
      new UpdateCommand({
        TableName: table,
        Key: { [KEY.partition]: item[KEY.partition], [KEY.sort]: item[KEY.sort] },
        UpdateExpression: 'SET #ttl = :ttl',
        ConditionExpression: 'attribute_exists(#pk) AND #expiresAt = :expiresAt AND attribute_not_exists(#ttl)',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#expiresAt': 'expiresAt', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':ttl': tokenTtl(expiresAt), ':expiresAt': expiresAt },
      }),
    );
    return true;
  } catch (error) {
    // Revoked, or given its TTL by another run since the scan read it: nothing to do.
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
