import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { validateOrgName } from '../../core/names.js';
import type { DefaultStackPermission } from '../../core/kernel/permissions.js';
import { type IdentityStore, type Membership, type OidcPolicyRecord, type OrgRecord, type OrgRole, type TeamRecord, type TokenRecord, type UserRecord } from '../../ports/identity-store.js';
import { translateDynamoDbError } from './errors.js';
import { OidcPolicyItems } from './oidc-policy-items.js';
import { queryByPrefix } from './queries.js';
import { ORG_SK, TOKEN_HASH_SK, USER_SK, memberSk, orgMemberSk, orgPk, teamSk, tokenHashPk, userPk, userTokenSk } from './keys.js';
import { KEY, putNew, TTL_ATTRIBUTE } from './table.js';
import {
  EXISTS,
  SHA256_HEX,
  TOKEN_ID,
  isConditionFailure,
  requireHash,
  requireLogin,
  requireRole,
  requireTeam,
  requireTokenId,
  strip,
  tokenTtl,
  toTeam,
  toToken,
} from './dynamodb-identity-items.js';

/** Users, organizations, memberships and API tokens in the Stackyard table. */
export class DynamoDbIdentityStore implements IdentityStore {
  private readonly oidcPolicies: OidcPolicyItems;

  /** `now`: the clock that decides which tokens have expired (epoch milliseconds). */
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number,
  ) {
    this.oidcPolicies = new OidcPolicyItems(documents, table);
  }

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
    requireRole(membership.role);
    const record = { org: membership.org, login: membership.login, role: membership.role };
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: putNew(this.table, { [KEY.partition]: userPk(record.login), [KEY.sort]: memberSk(record.org), ...record }),
            },
            { Put: { TableName: this.table, Item: { [KEY.partition]: orgPk(record.org), [KEY.sort]: orgMemberSk(record.login), ...record } } },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) {
        throw new ConflictError(`User '${record.login}' is already a member of '${record.org}'.`, {}, { cause: error });
      }
      throw translateDynamoDbError(error, 'The membership');
    }
  }

  /** Both copies of the membership in one transaction, conditional on the user's copy existing. */
  async setMemberRole(org: string, login: string, role: OrgRole): Promise<void> {
    requireLogin(login);
    validateOrgName(org);
    requireRole(role);
    const set = (pk: string, sk: string, condition: boolean) => ({
      Update: {
        TableName: this.table,
        Key: { [KEY.partition]: pk, [KEY.sort]: sk },
        UpdateExpression: 'SET #role = :role, #org = :org, #login = :login',
        ExpressionAttributeNames: { '#role': 'role', '#org': 'org', '#login': 'login', ...(condition ? { '#pk': KEY.partition } : {}) },
        ExpressionAttributeValues: { ':role': role, ':org': org, ':login': login },
        ...(condition ? { ConditionExpression: EXISTS } : {}),
      },
    });
    try {
      await this.documents.send(
        new TransactWriteCommand({ TransactItems: [set(userPk(login), memberSk(org), true), set(orgPk(org), orgMemberSk(login), false)] }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`User '${login}' is not a member of '${org}'.`, { cause: error });
      throw translateDynamoDbError(error, 'The membership');
    }
  }

  async removeMember(org: string, login: string): Promise<void> {
    requireLogin(login);
    validateOrgName(org);
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: { [KEY.partition]: userPk(login), [KEY.sort]: memberSk(org) },
                ConditionExpression: EXISTS,
                ExpressionAttributeNames: { '#pk': KEY.partition },
              },
            },
            { Delete: { TableName: this.table, Key: { [KEY.partition]: orgPk(org), [KEY.sort]: orgMemberSk(login) } } },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`User '${login}' is not a member of '${org}'.`, { cause: error });
      throw translateDynamoDbError(error, 'The membership');
    }
  }

  async listMembers(org: string): Promise<Membership[]> {
    const items = await this.queryPrefix(orgPk(validateOrgName(org)), 'MEMBER#');
    return items.map((item) => strip(item) as unknown as Membership);
  }

  async setDefaultStackPermission(org: string, permission: DefaultStackPermission): Promise<void> {
    await this.updateExisting(orgPk(validateOrgName(org)), ORG_SK, 'SET #p = :p', { '#p': 'defaultStackPermission' }, { ':p': permission }, () =>
      new NotFoundError(`Organization '${org}' does not exist.`),
    );
  }

  async createTeam(team: TeamRecord): Promise<void> {
    validateOrgName(team.org);
    requireTeam(team.name);
    const { members, ...rest } = team;
    const unique = [...new Set(members)];
    // DynamoDB has no empty sets: a team without members has no `members` attribute.
    const item = { ...rest, ...(unique.length > 0 ? { members: new Set(unique) } : {}) };
    await this.putNew(orgPk(team.org), teamSk(team.name), item, `Team '${team.name}' already exists in '${team.org}'.`);
  }

  async getTeam(org: string, name: string): Promise<TeamRecord> {
    const item = await this.get(orgPk(validateOrgName(org)), teamSk(requireTeam(name)));
    if (!item) throw new NotFoundError(`Team '${name}' of '${org}' does not exist.`);
    return toTeam(item);
  }

  async listTeams(org: string): Promise<TeamRecord[]> {
    const items = await this.queryPrefix(orgPk(validateOrgName(org)), 'TEAM#');
    return items.map((item) => toTeam(strip(item)));
  }

  async deleteTeam(org: string, name: string): Promise<void> {
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [KEY.partition]: orgPk(validateOrgName(org)), [KEY.sort]: teamSk(requireTeam(name)) },
          ConditionExpression: EXISTS,
          ExpressionAttributeNames: { '#pk': KEY.partition },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`Team '${name}' of '${org}' does not exist.`, { cause: error });
      throw translateDynamoDbError(error, 'The team');
    }
  }

  /** `ADD`/`DELETE` on a string set: atomic, so concurrent changes of different members all apply. */
  async changeTeamMember(org: string, name: string, login: string, action: 'add' | 'remove'): Promise<void> {
    requireLogin(login);
    await this.updateExisting(
      orgPk(validateOrgName(org)),
      teamSk(requireTeam(name)),
      `${action === 'add' ? 'ADD' : 'DELETE'} #members :member`,
      { '#members': 'members' },
      { ':member': new Set([login]) },
      () => new NotFoundError(`Team '${name}' of '${org}' does not exist.`),
    );
  }

  async createOidcPolicy(policy: OidcPolicyRecord, maxPerOrg: number): Promise<void> {
    validateOrgName(policy.org);
    requireTokenId(policy.id);
    await this.oidcPolicies.create(policy, maxPerOrg);
  }

  async listOidcPolicies(org: string): Promise<OidcPolicyRecord[]> {
    return this.oidcPolicies.list(validateOrgName(org));
  }

  async deleteOidcPolicy(org: string, id: string): Promise<void> {
    await this.oidcPolicies.delete(validateOrgName(org), requireTokenId(id));
  }

  async touchToken(tokenHash: string, at: number, minIntervalMs: number): Promise<void> {
    if (typeof tokenHash !== 'string' || !SHA256_HEX.test(tokenHash)) return;
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: tokenHashPk(tokenHash), [KEY.sort]: TOKEN_HASH_SK },
          UpdateExpression: 'SET #used = :at',
          ConditionExpression: 'attribute_exists(#pk) AND (attribute_not_exists(#used) OR #used <= :before)',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#used': 'lastUsedAt' },
          ExpressionAttributeValues: { ':at': at, ':before': at - minIntervalMs },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return;
      throw translateDynamoDbError(error, 'The token');
    }
  }

  async listMemberships(login: string): Promise<Membership[]> {
    const items = await this.queryPrefix(userPk(requireLogin(login)), 'MEMBER#');
    return items.map((item) => strip(item) as unknown as Membership);
  }

  /** Both items of an expiring token carry the TTL attribute, so DynamoDB removes them some time after expiry. */
  async putToken(token: TokenRecord): Promise<void> {
    requireLogin(token.login);
    requireHash(token.tokenHash);
    if (typeof token.id !== 'string' || !TOKEN_ID.test(token.id)) throw new InvalidInputError('Invalid token id.');
    const ttl = token.expiresAt === undefined ? {} : { [TTL_ATTRIBUTE]: tokenTtl(token.expiresAt) };
    try {
      await this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: putNew(this.table, { [KEY.partition]: userPk(token.login), [KEY.sort]: userTokenSk(token.id), ...token, ...ttl }),
            },
            {
              Put: putNew(this.table, { [KEY.partition]: tokenHashPk(token.tokenHash), [KEY.sort]: TOKEN_HASH_SK, ...token, ...ttl }),
            },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError('That token already exists.', { id: token.id }, { cause: error });
      throw translateDynamoDbError(error, 'The token');
    }
  }

  /** An expired token is still found until DynamoDB's TTL removes it, so the caller can say it expired. */
  async findToken(tokenHash: string): Promise<TokenRecord | undefined> {
    if (typeof tokenHash !== 'string' || !SHA256_HEX.test(tokenHash)) return undefined;
    const item = await this.get(tokenHashPk(tokenHash), TOKEN_HASH_SK);
    return item ? toToken(item) : undefined;
  }

  /** TTL removes expired tokens days late at worst; they are never listed meanwhile. */
  async listTokens(login: string): Promise<TokenRecord[]> {
    const items = await this.queryPrefix(userPk(requireLogin(login)), 'APITOKEN#');
    const now = this.now();
    return items.map((item) => toToken(strip(item))).filter((token) => token.expiresAt === undefined || token.expiresAt > now);
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

  private async updateExisting(
    pk: string,
    sk: string,
    expression: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
    missing: () => Error,
  ): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: pk, [KEY.sort]: sk },
          UpdateExpression: expression,
          ConditionExpression: EXISTS,
          ExpressionAttributeNames: { '#pk': KEY.partition, ...names },
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw missing();
      throw translateDynamoDbError(error, 'The record');
    }
  }

  private checkUser(user: UserRecord): void {
    requireLogin(user.login);
    if (typeof user.admin !== 'boolean') throw new InvalidInputError('admin must be true or false.');
  }

  private async putNew(pk: string, sk: string, record: object, conflict: string): Promise<void> {
    try {
      await this.documents.send(
        new PutCommand(putNew(this.table, { [KEY.partition]: pk, [KEY.sort]: sk, ...record })),
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
