import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { validateOrgName } from '../../core/names.js';
import type { IdentityStore, Membership, OrgRecord, TokenRecord, UserRecord } from '../../ports/identity-store.js';
import { translateDynamoDbError } from './errors.js';
import { queryByPrefix } from './queries.js';
import { ORG_SK, TOKEN_HASH_SK, USER_SK, memberSk, orgPk, tokenHashPk, userPk, userTokenSk } from './keys.js';
import { KEY } from './table.js';

const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const TOKEN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const IS_NEW = 'attribute_not_exists(#pk)';

function requireLogin(login: unknown): string {
  if (typeof login !== 'string' || !LOGIN.test(login)) {
    throw new InvalidInputError("Invalid user login: expected 1 to 100 letters, digits, '-', '_' or '.'.");
  }
  return login;
}

function requireHash(hash: unknown): string {
  if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
    throw new InvalidInputError('Invalid token hash: expected SHA-256 hex.');
  }
  return hash;
}

function strip(item: Record<string, unknown>): Record<string, unknown> {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...rest } = item;
  return rest;
}

function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return error.name === 'TransactionCanceledException' && !!reasons?.some((reason) => reason.Code === 'ConditionalCheckFailed');
}

/** Users, organizations, memberships and API tokens in the Stackyard table. */
export class DynamoDbIdentityStore implements IdentityStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async createUser(user: UserRecord): Promise<UserRecord> {
    this.checkUser(user);
    await this.putNew(userPk(user.login), USER_SK, user, `User '${user.login}' already exists.`);
    return user;
  }

  async getUser(login: string): Promise<UserRecord> {
    const item = await this.get(userPk(requireLogin(login)), USER_SK);
    if (!item) throw new NotFoundError(`User '${login}' does not exist.`);
    return item as unknown as UserRecord;
  }

  async putUser(user: UserRecord): Promise<UserRecord> {
    this.checkUser(user);
    await this.call('The user', () =>
      this.documents.send(
        new PutCommand({ TableName: this.table, Item: { [KEY.partition]: userPk(user.login), [KEY.sort]: USER_SK, ...user } }),
      ),
    );
    return user;
  }

  async createOrg(org: OrgRecord): Promise<OrgRecord> {
    validateOrgName(org.name);
    await this.putNew(orgPk(org.name), ORG_SK, org, `Organization '${org.name}' already exists.`);
    return org;
  }

  async getOrg(name: string): Promise<OrgRecord> {
    const item = await this.get(orgPk(validateOrgName(name)), ORG_SK);
    if (!item) throw new NotFoundError(`Organization '${name}' does not exist.`);
    return item as unknown as OrgRecord;
  }

  async addMember(membership: Membership): Promise<void> {
    requireLogin(membership.login);
    validateOrgName(membership.org);
    if (membership.role !== 'admin' && membership.role !== 'member') {
      throw new InvalidInputError(`Invalid role '${String(membership.role)}': expected admin or member.`);
    }
    await this.putNew(
      userPk(membership.login),
      memberSk(membership.org),
      membership,
      `User '${membership.login}' is already a member of '${membership.org}'.`,
    );
  }

  async listMemberships(login: string): Promise<Membership[]> {
    const items = await this.queryPrefix(userPk(requireLogin(login)), 'MEMBER#');
    return items.map((item) => strip(item) as unknown as Membership);
  }

  async putToken(token: TokenRecord): Promise<void> {
    requireLogin(token.login);
    requireHash(token.tokenHash);
    if (typeof token.id !== 'string' || !TOKEN_ID.test(token.id)) throw new InvalidInputError('Invalid token id.');
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { [KEY.partition]: userPk(token.login), [KEY.sort]: userTokenSk(token.id), ...token },
                ConditionExpression: IS_NEW,
                ExpressionAttributeNames: { '#pk': KEY.partition },
              },
            },
            {
              Put: {
                TableName: this.table,
                Item: { [KEY.partition]: tokenHashPk(token.tokenHash), [KEY.sort]: TOKEN_HASH_SK, ...token },
                ConditionExpression: IS_NEW,
                ExpressionAttributeNames: { '#pk': KEY.partition },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError('That token already exists.', { id: token.id }, { cause: error });
      throw translateDynamoDbError(error, 'The token');
    }
  }

  async findToken(tokenHash: string): Promise<TokenRecord | undefined> {
    if (typeof tokenHash !== 'string' || !SHA256_HEX.test(tokenHash)) return undefined;
    const item = await this.get(tokenHashPk(tokenHash), TOKEN_HASH_SK);
    return item ? (item as unknown as TokenRecord) : undefined;
  }

  async listTokens(login: string): Promise<TokenRecord[]> {
    const items = await this.queryPrefix(userPk(requireLogin(login)), 'APITOKEN#');
    return items.map((item) => strip(item) as unknown as TokenRecord);
  }

  async revokeToken(login: string, id: string): Promise<void> {
    requireLogin(login);
    const missing = () => new NotFoundError(`User '${login}' has no token with id '${id}'.`);
    if (typeof id !== 'string' || !TOKEN_ID.test(id)) throw missing();
    const item = await this.get(userPk(login), userTokenSk(id));
    if (!item) throw missing();
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: userPk(login), [KEY.sort]: userTokenSk(id) },
                ConditionExpression: 'attribute_exists(#pk)',
                ExpressionAttributeNames: { '#pk': KEY.partition },
              },
            },
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: tokenHashPk(String(item.tokenHash)), [KEY.sort]: TOKEN_HASH_SK },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw missing();
      throw translateDynamoDbError(error, 'The token');
    }
  }

  private checkUser(user: UserRecord): void {
    requireLogin(user.login);
    if (typeof user.admin !== 'boolean') throw new InvalidInputError('admin must be true or false.');
  }

  private async putNew(pk: string, sk: string, record: object, conflict: string): Promise<void> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: { [KEY.partition]: pk, [KEY.sort]: sk, ...record },
          ConditionExpression: IS_NEW,
          ExpressionAttributeNames: { '#pk': KEY.partition },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError(conflict, {}, { cause: error });
      throw translateDynamoDbError(error, 'The record');
    }
  }

  private async get(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.call('The record', () =>
      this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: sk }, ConsistentRead: true }),
      ),
    );
    return Item ? strip(Item) : undefined;
  }

  private queryPrefix(pk: string, prefix: string): Promise<Record<string, unknown>[]> {
    return this.call('The listing', () => queryByPrefix(this.documents, this.table, pk, prefix));
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
