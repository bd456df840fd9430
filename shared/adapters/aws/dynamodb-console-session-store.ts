import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError } from '../../core/errors.js';
import type { ConsoleSession, ConsoleSessionStore, LoginCode } from '../../ports/console-session-store.js';
import { translateDynamoDbError } from './errors.js';
import { CONSOLE_SESSION_SK, LOGIN_CODE_SK, consoleSessionPk, loginCodePk } from './keys.js';
import { KEY, putNew, TTL_ATTRIBUTE } from './table.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
/**
 * Redeeming is one delete under this condition: the item exists and has not expired. Two redeems at once: the first
 * delete wins, the second finds no item and fails its condition; a late redeem fails on `#expiresAt`, so a code
 * lives 60 seconds whatever the TTL sweeper (which may lag by days) has done.
 */
const CODE_IS_LIVE = 'attribute_exists(#pk) AND #expiresAt > :now';

function isHash(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value);
}

function requireHash(value: unknown): string {
  if (!isHash(value)) throw new InvalidInputError('Invalid hash: expected SHA-256 hex.');
  return value;
}

function strip<T>(item: Record<string, unknown>): T {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, [TTL_ATTRIBUTE]: _ttl, ...rest } = item;
  return rest as T;
}

/** Console sessions and login codes as single items of the Stackyard table, swept by TTL after they expire. */
export class DynamoDbConsoleSessionStore implements ConsoleSessionStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number,
  ) {}

  async createSession(session: ConsoleSession): Promise<void> {
    await this.putNew(consoleSessionPk(requireHash(session.idHash)), CONSOLE_SESSION_SK, session, 'The console session');
  }

  async getSession(idHash: string): Promise<ConsoleSession | undefined> {
    if (!isHash(idHash)) return undefined;
    const result = await this.call('The console session', () =>
      this.documents.send(
        new GetCommand({
          TableName: this.table,
          Key: { [KEY.partition]: consoleSessionPk(idHash), [KEY.sort]: CONSOLE_SESSION_SK },
          ConsistentRead: true,
        }),
      ),
    );
    if (!result.Item) return undefined;
    const session = strip<ConsoleSession>(result.Item);
    return session.expiresAt > this.now() ? session : undefined;
  }

  async deleteSession(idHash: string): Promise<void> {
    if (!isHash(idHash)) return;
    await this.call('The console session', () =>
      this.documents.send(
        new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: consoleSessionPk(idHash), [KEY.sort]: CONSOLE_SESSION_SK } }),
      ),
    );
  }

  async createLoginCode(code: LoginCode): Promise<void> {
    await this.putNew(loginCodePk(requireHash(code.codeHash)), LOGIN_CODE_SK, code, 'The login code');
  }

  async redeemLoginCode(codeHash: string): Promise<LoginCode | undefined> {
    if (!isHash(codeHash)) return undefined;
    try {
      const result = await this.documents.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [KEY.partition]: loginCodePk(codeHash), [KEY.sort]: LOGIN_CODE_SK },
          ConditionExpression: CODE_IS_LIVE,
          ExpressionAttributeNames: { '#pk': KEY.partition, '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':now': this.now() },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return result.Attributes ? strip<LoginCode>(result.Attributes) : undefined;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      throw translateDynamoDbError(error, 'The login code');
    }
  }

  private async putNew(pk: string, sk: string, record: ConsoleSession | LoginCode, what: string): Promise<void> {
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: pk, [KEY.sort]: sk, [TTL_ATTRIBUTE]: Math.ceil(record.expiresAt / 1000), ...record })),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new ConflictError(`${what} already exists.`, {}, { cause: error });
      }
      throw translateDynamoDbError(error, what);
    }
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
