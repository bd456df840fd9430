import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { MAX_GRANTS, validateEnvironmentGrant, type EnvironmentPermission } from '../../core/kernel/permissions.js';
import { formatEnvironmentRef, validateEnvironmentRef, validateOrgName, type EnvironmentRef } from '../../core/names.js';
import type {
  EnvironmentPage,
  EnvironmentRecord,
  EnvironmentRevisionRecord,
  EnvironmentStore,
  NewEnvironment,
  NewRevision,
  OpenSessionRecord,
  RevisionTagRecord,
} from '../../ports/environment-store.js';
import { decodePageToken, encodePageToken, pageLimit, revisionNumber, staleRevision } from '../environment-rules.js';
import { cancellationCodes, translateWriteError } from './conditional-update.js';
import { errorName, translateDynamoDbError } from './errors.js';
import {
  ENVIRONMENT_SK,
  NAME_SK,
  OPEN_SESSION_SK,
  REVISION_PREFIX,
  REVISION_TAG_PREFIX,
  environmentNamePk,
  environmentPk,
  environmentsByOrg,
  openSessionPk,
  revisionSk,
  revisionTagSk,
} from './keys.js';
import { KEY, putNew, STACKS_BY_NAME_INDEX, TTL_ATTRIBUTE } from './table.js';

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const RECORD_FIELDS = ['id', 'org', 'project', 'name', 'revision', 'encryptedDataKey', 'createdBy', 'grants', 'createdAt', 'modifiedAt'] as const;
/** Every write of a record carries it: the record exists and its latest revision is the one the caller read. */
const AT_REVISION = 'attribute_exists(#pk) AND #revision = :expected';

const TAG_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

function requireId(id: unknown, what = 'environment id'): string {
  if (typeof id !== 'string' || !ID.test(id)) throw new InvalidInputError(`Invalid ${what}: expected 1 to 128 letters, digits, hyphens or underscores.`);
  return id;
}

function requireTagName(name: unknown): string {
  if (typeof name !== 'string' || !TAG_NAME.test(name)) throw new InvalidInputError(`Invalid tag name '${String(name).slice(0, 60)}'.`);
  return name;
}

function pick<T>(item: Record<string, unknown>, fields: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (item[field] !== undefined) out[field] = item[field];
  return out as T;
}

const toRecord = (item: Record<string, unknown>) => pick<EnvironmentRecord>(item, RECORD_FIELDS);
const toRevision = (item: Record<string, unknown>) => pick<EnvironmentRevisionRecord>(item, ['number', 'definition', 'createdAt', 'creatorLogin']);
const toTag = (item: Record<string, unknown>) => pick<RevisionTagRecord>(item, ['name', 'revision', 'createdAt', 'modifiedAt', 'editorLogin']);

/**
 * Environments in the Stackyard table: the record (`ENV#<id>`/`ENV`, listed through gsi1 by organization), its name
 * item, its revisions and revision tags in its partition, and open sessions as items swept by TTL. Creating and
 * appending are transactions of the record and the revision, so one never exists without the other.
 */
export class DynamoDbEnvironmentStore implements EnvironmentStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number,
  ) {}

  async create(environment: NewEnvironment, first: NewRevision): Promise<EnvironmentRecord> {
    const ref = validateEnvironmentRef(environment);
    const id = requireId(environment.id);
    const record: EnvironmentRecord = {
      id,
      ...ref,
      revision: 1,
      encryptedDataKey: environment.encryptedDataKey,
      createdBy: environment.createdBy,
      grants: { ...(environment.grants ?? {}) },
      createdAt: first.createdAt,
      modifiedAt: first.createdAt,
    };
    const items = [
      { Put: putNew(this.table, { [KEY.partition]: environmentNamePk(ref.org, ref.project, ref.name), [KEY.sort]: NAME_SK, environmentId: id }) },
      {
        Put: putNew(this.table, {
          [KEY.partition]: environmentPk(id),
          [KEY.sort]: ENVIRONMENT_SK,
          [KEY.gsi1Partition]: environmentsByOrg(ref.org),
          [KEY.gsi1Sort]: `${ref.project}#${ref.name}`,
          ...record,
        }),
      },
      { Put: putNew(this.table, this.revisionItem(id, 1, first)) },
    ];
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') {
        throw new ConflictError(`Environment '${formatEnvironmentRef(ref)}' already exists.`, { name: formatEnvironmentRef(ref) }, { cause: error });
      }
      if (codes?.[1] === 'ConditionalCheckFailed') throw new ConflictError(`Environment id ${id} already exists.`, {}, { cause: error });
      throw translateWriteError(error, 'The environment');
    }
    return record;
  }

  async get(ref: EnvironmentRef): Promise<EnvironmentRecord> {
    const valid = validateEnvironmentRef(ref);
    const name = await this.getItem(environmentNamePk(valid.org, valid.project, valid.name), NAME_SK);
    const record = name ? await this.getItem(environmentPk(String(name.environmentId)), ENVIRONMENT_SK) : undefined;
    if (!record || record.org !== valid.org || record.project !== valid.project || record.name !== valid.name) {
      throw new NotFoundError(`Environment '${formatEnvironmentRef(valid)}' does not exist.`);
    }
    return toRecord(record);
  }

  async getById(id: string): Promise<EnvironmentRecord> {
    const item = await this.getItem(environmentPk(requireId(id)), ENVIRONMENT_SK);
    if (!item) throw new NotFoundError(`Environment ${id} does not exist.`);
    return toRecord(item);
  }

  async list(org: string, options: { limit?: number; continuationToken?: string } = {}): Promise<EnvironmentPage> {
    const valid = validateOrgName(org);
    const limit = pageLimit(options.limit);
    const after = options.continuationToken === undefined ? undefined : decodePageToken(options.continuationToken);
    const found: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.call('The environment list', () =>
        this.documents.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: STACKS_BY_NAME_INDEX,
            KeyConditionExpression: after ? '#g = :org AND #s > :after' : '#g = :org',
            ExpressionAttributeNames: { '#g': KEY.gsi1Partition, ...(after ? { '#s': KEY.gsi1Sort } : {}) },
            ExpressionAttributeValues: { ':org': environmentsByOrg(valid), ...(after ? { ':after': `${after.project}#${after.name}` } : {}) },
            ExclusiveStartKey: startKey,
            Limit: limit + 1 - found.length,
          }),
        ),
      );
      found.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey && found.length <= limit);
    const environments = found.slice(0, limit).map(toRecord);
    return found.length > limit ? { environments, continuationToken: encodePageToken(environments.at(-1)!) } : { environments };
  }

  async addRevision(id: string, expectedRevision: number, revision: NewRevision): Promise<EnvironmentRecord> {
    const envId = requireId(id);
    const number = revisionNumber(expectedRevision) + 1;
    const update = {
      TableName: this.table,
      Key: { [KEY.partition]: environmentPk(envId), [KEY.sort]: ENVIRONMENT_SK },
      UpdateExpression: 'SET #revision = :next, #modifiedAt = :at',
      ConditionExpression: AT_REVISION,
      ExpressionAttributeNames: { '#pk': KEY.partition, '#revision': 'revision', '#modifiedAt': 'modifiedAt' },
      ExpressionAttributeValues: { ':expected': expectedRevision, ':next': number, ':at': revision.createdAt },
    };
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, { Put: putNew(this.table, this.revisionItem(envId, number, revision)) }] }));
    } catch (error) {
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') throw staleRevision(await this.getById(envId), expectedRevision);
      throw translateWriteError(error, 'The environment');
    }
    return this.getById(envId);
  }

  async getRevision(id: string, revision: number): Promise<EnvironmentRevisionRecord> {
    const envId = requireId(id);
    const record = await this.getById(envId);
    const item = await this.getItem(environmentPk(envId), revisionSk(revisionNumber(revision)));
    if (!item) throw new NotFoundError(`Revision ${revision} of environment '${formatEnvironmentRef(record)}' does not exist.`);
    return toRevision(item);
  }

  async listRevisions(id: string, options: { before?: number; count: number }): Promise<EnvironmentRevisionRecord[]> {
    const envId = requireId(id);
    await this.getById(envId);
    if (options.before !== undefined && options.before <= 1) return [];
    const top = options.before === undefined ? `${REVISION_PREFIX}~` : revisionSk(options.before - 1);
    const result = await this.call('The environment revisions', () =>
      this.documents.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
          ExpressionAttributeValues: { ':pk': environmentPk(envId), ':from': revisionSk(1), ':to': top },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: options.count,
        }),
      ),
    );
    return (result.Items ?? []).map(toRevision);
  }

  async delete(id: string, expectedRevision: number): Promise<void> {
    const envId = requireId(id);
    const current = await this.getById(envId);
    const items: { Delete: { TableName: string; Key: Record<string, string>; ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } }[] = [
      {
        Delete: {
          TableName: this.table,
          Key: { [KEY.partition]: environmentPk(envId), [KEY.sort]: ENVIRONMENT_SK },
          ConditionExpression: AT_REVISION,
          ExpressionAttributeNames: { '#pk': KEY.partition, '#revision': 'revision' },
          ExpressionAttributeValues: { ':expected': expectedRevision },
        },
      },
      {
        Delete: {
          TableName: this.table,
          Key: { [KEY.partition]: environmentNamePk(current.org, current.project, current.name), [KEY.sort]: NAME_SK },
          ConditionExpression: '#id = :id',
          ExpressionAttributeNames: { '#id': 'environmentId' },
          ExpressionAttributeValues: { ':id': envId },
        },
      },
    ];
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') throw staleRevision(await this.getById(envId), expectedRevision);
      throw translateWriteError(error, 'The environment');
    }
  }

  async setGrant(id: string, subject: string, permission: EnvironmentPermission | null): Promise<EnvironmentRecord> {
    const envId = requireId(id);
    validateEnvironmentGrant(subject, permission);
    const remove = permission === null;
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: environmentPk(envId), [KEY.sort]: ENVIRONMENT_SK },
          UpdateExpression: remove ? 'REMOVE #grants.#s' : 'SET #grants.#s = :p',
          ConditionExpression: remove ? 'attribute_exists(#pk)' : 'attribute_exists(#pk) AND (size(#grants) < :max OR attribute_exists(#grants.#s))',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#grants': 'grants', '#s': subject },
          ExpressionAttributeValues: remove ? undefined : { ':p': permission, ':max': MAX_GRANTS },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(Attributes ?? {});
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') {
        await this.getById(envId);
        throw new InvalidInputError(`An environment can have at most ${MAX_GRANTS} grants.`, { cause: error });
      }
      throw translateWriteError(error, 'The environment');
    }
  }

  async createTag(id: string, tag: RevisionTagRecord): Promise<RevisionTagRecord> {
    const envId = requireId(id);
    await this.getById(envId);
    const item = { [KEY.partition]: environmentPk(envId), [KEY.sort]: revisionTagSk(requireTagName(tag.name)), ...tag };
    try {
      await this.documents.send(new PutCommand(putNew(this.table, item)));
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new ConflictError(`Tag '${tag.name}' already exists.`, {}, { cause: error });
      throw translateWriteError(error, 'The tag');
    }
    return tag;
  }

  async updateTag(id: string, name: string, revision: number, editorLogin: string, modifiedAt: number): Promise<RevisionTagRecord> {
    const envId = requireId(id);
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: environmentPk(envId), [KEY.sort]: revisionTagSk(requireTagName(name)) },
          UpdateExpression: 'SET #revision = :revision, #editor = :editor, #modifiedAt = :at',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#revision': 'revision', '#editor': 'editorLogin', '#modifiedAt': 'modifiedAt' },
          ExpressionAttributeValues: { ':revision': revisionNumber(revision), ':editor': editorLogin, ':at': modifiedAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toTag(Attributes ?? {});
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new NotFoundError(`Tag '${name}' does not exist.`, { cause: error });
      throw translateWriteError(error, 'The tag');
    }
  }

  async deleteTag(id: string, name: string): Promise<void> {
    const envId = requireId(id);
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [KEY.partition]: environmentPk(envId), [KEY.sort]: revisionTagSk(requireTagName(name)) },
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KEY.partition },
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new NotFoundError(`Tag '${name}' does not exist.`, { cause: error });
      throw translateWriteError(error, 'The tag');
    }
  }

  async getTag(id: string, name: string): Promise<RevisionTagRecord> {
    const item = await this.getItem(environmentPk(requireId(id)), revisionTagSk(requireTagName(name)));
    if (!item) throw new NotFoundError(`Tag '${name}' does not exist.`);
    return toTag(item);
  }

  async listTags(id: string): Promise<RevisionTagRecord[]> {
    const envId = requireId(id);
    const tags: RevisionTagRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.call('The tag list', () =>
        this.documents.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
            ExpressionAttributeValues: { ':pk': environmentPk(envId), ':prefix': REVISION_TAG_PREFIX },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      tags.push(...(page.Items ?? []).map(toTag));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return tags;
  }

  async createOpenSession(session: OpenSessionRecord): Promise<void> {
    const item = {
      [KEY.partition]: openSessionPk(requireId(session.id, 'session id')),
      [KEY.sort]: OPEN_SESSION_SK,
      [TTL_ATTRIBUTE]: Math.ceil(session.expiresAt / 1000),
      ...session,
    };
    try {
      await this.documents.send(new PutCommand(putNew(this.table, item)));
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new ConflictError('Open session already exists.', {}, { cause: error });
      throw translateWriteError(error, 'The open session');
    }
  }

  async getOpenSession(id: string): Promise<OpenSessionRecord | undefined> {
    if (typeof id !== 'string' || !ID.test(id)) return undefined;
    const item = await this.getItem(openSessionPk(id), OPEN_SESSION_SK);
    if (!item) return undefined;
    const session = pick<OpenSessionRecord>(item, ['id', 'environmentId', 'revision', 'login', 'createdAt', 'expiresAt', 'encryptedDataKey', 'sealedDefinition']);
    // The TTL sweeper may lag by days: expiry is decided here, by the clock.
    return session.expiresAt > this.now() ? session : undefined;
  }

  private revisionItem(id: string, number: number, revision: NewRevision): Record<string, unknown> {
    if (typeof revision.definition !== 'string' || revision.definition.length === 0) {
      throw new InvalidInputError('A revision needs the name of its definition object.');
    }
    return {
      [KEY.partition]: environmentPk(id),
      [KEY.sort]: revisionSk(number),
      number,
      definition: revision.definition,
      createdAt: revision.createdAt,
      creatorLogin: revision.creatorLogin,
    };
  }

  private async getItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const result = await this.call('The environment', () =>
      this.documents.send(new GetCommand({ TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: sk }, ConsistentRead: true })),
    );
    return result.Item;
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
