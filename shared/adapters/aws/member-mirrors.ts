import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes } from './conditional-update.js';
import { translateDynamoDbError } from './errors.js';
import { orgMemberSk, orgPk } from './keys.js';
import { scanItems } from './table-scan.js';
import { KEY } from './table.js';

/** What one backfill did: memberships read, and organization mirrors it wrote. */
export interface MemberMirrorBackfill {
  memberships: number;
  added: number;
}

/**
 * Writes the organization's mirror (`ORG#<org>` / `MEMBER#<login>`) of every membership that has none: tables
 * written before the mirror existed hold only the user's copy (`USER#<login>` / `MEMBER#<org>`), and `org member ls`
 * reads the mirrors. One scan of the table, so it is run once by `stackyard admin upgrade`, never on a request.
 *
 * Safe to run again and while the service runs: each mirror is written in a transaction that checks the user's copy
 * still exists with the same role (a membership removed or changed meanwhile is left to the write that changed it,
 * which writes both copies) and that no mirror exists yet.
 */
export async function backfillMemberMirrors(documents: DynamoDBDocumentClient, table: string): Promise<MemberMirrorBackfill> {
  const result: MemberMirrorBackfill = { memberships: 0, added: 0 };
  const userCopies = {
    expression: 'begins_with(#pk, :user) AND begins_with(#sk, :member)',
    names: { '#pk': KEY.partition, '#sk': KEY.sort },
    values: { ':user': 'USER#', ':member': 'MEMBER#' },
  };
  try {
    for await (const item of scanItems(documents, table, userCopies)) {
      const { org, login, role } = item as { org?: unknown; login?: unknown; role?: unknown };
      if (typeof org !== 'string' || typeof login !== 'string' || typeof role !== 'string') continue;
      result.memberships += 1;
      if (await writeMirror(documents, table, item, { org, login, role })) result.added += 1;
    }
  } catch (error) {
    throw translateDynamoDbError(error, 'The membership backfill');
  }
  return result;
}

async function writeMirror(
  documents: DynamoDBDocumentClient,
  table: string,
  userCopy: Record<string, unknown>,
  membership: { org: string; login: string; role: string },
): Promise<boolean> {
  try {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: table,
              Key: { [KEY.partition]: userCopy[KEY.partition], [KEY.sort]: userCopy[KEY.sort] },
              ConditionExpression: '#role = :role',
              ExpressionAttributeNames: { '#role': 'role' },
              ExpressionAttributeValues: { ':role': membership.role },
            },
          },
          {
            Put: {
              TableName: table,
              Item: { [KEY.partition]: orgPk(membership.org), [KEY.sort]: orgMemberSk(membership.login), ...membership },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': KEY.partition },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    // The mirror is there already, or the membership changed since the scan read it: nothing to do.
    if (cancellationCodes(error)?.includes('ConditionalCheckFailed')) return false;
    throw error;
  }
}
