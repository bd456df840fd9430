import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/errors.js';
import type { PolicyGroupRecord, PolicyPackVersionRecord, PolicyStore, StackPolicyResultsRecord } from '../../ports/policy-store.js';
import { translateDynamoDbError } from './errors.js';
import { failedOnCondition, queryByPrefix, withoutKeys } from './queries.js';
import { KEY } from './table.js';

const policyPk = (org: string) => `POLICY#${org}`;
const VERSION_PREFIX = 'PACKV#';
const versionSk = (name: string, tag: string) => `${VERSION_PREFIX}${name}#${tag}`;
/** The claim on a version number, so two versions of a pack never share one. */
const numberSk = (name: string, version: number) => `PACKN#${name}#${String(version).padStart(10, '0')}`;
const GROUP_PREFIX = 'GROUP#';
const groupSk = (name: string) => `${GROUP_PREFIX}${name}`;
const RESULTS_PREFIX = 'RESULTS#';
const resultsSk = (stackId: string) => `${RESULTS_PREFIX}${stackId}`;

const ABSENT = 'attribute_not_exists(#pk)';
const AT_REVISION = '#revision = :expected';

/**
 * Pack versions and groups as items of the Stackyard table, one partition per organization (`POLICY#<org>`):
 * `PACKV#<name>#<tag>` per version with a `PACKN#<name>#<number>` claim written in the same transaction, and
 * `GROUP#<name>` per group, and `RESULTS#<stackId>` per stack for its latest update's violations. Every write is
 * conditional (absent, at the revision read, or of a higher stack version).
 */
export class DynamoDbPolicyStore implements PolicyStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async createVersion(record: PolicyPackVersionRecord): Promise<void> {
    const pk = policyPk(record.org);
    const put = (sk: string, item: Record<string, unknown>) => ({
      Put: { TableName: this.table, Item: { [KEY.partition]: pk, [KEY.sort]: sk, ...item }, ConditionExpression: ABSENT, ExpressionAttributeNames: { '#pk': KEY.partition } },
    });
    await this.conditional(`Version ${record.versionTag} of policy pack '${record.name}' already exists: versions are immutable, publish a new version.`, () =>
      this.documents.send(
        new TransactWriteCommand({
          TransactItems: [put(versionSk(record.name, record.versionTag), { ...record }), put(numberSk(record.name, record.version), { versionTag: record.versionTag })],
        }),
      ),
    );
  }

  async getVersion(org: string, name: string, versionTag: string): Promise<PolicyPackVersionRecord | undefined> {
    return this.getItem<PolicyPackVersionRecord>('The policy pack version', policyPk(org), versionSk(name, versionTag));
  }

  async listVersions(org: string): Promise<PolicyPackVersionRecord[]> {
    const records = await this.queryPrefix<PolicyPackVersionRecord>('The policy packs', policyPk(org), VERSION_PREFIX);
    return records.sort((a, b) => (a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1));
  }

  async updateVersion(record: PolicyPackVersionRecord, expectedRevision: number): Promise<void> {
    await this.conditional(`Version ${record.versionTag} of policy pack '${record.name}' changed since it was read: read it again and retry.`, () =>
      this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: { [KEY.partition]: policyPk(record.org), [KEY.sort]: versionSk(record.name, record.versionTag), ...record },
          ConditionExpression: `${AT_REVISION} AND #version = :version`,
          ExpressionAttributeNames: { '#revision': 'revision', '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expectedRevision, ':version': record.version },
        }),
      ),
    );
  }

  async deleteVersion(org: string, name: string, versionTag: string): Promise<void> {
    const current = await this.getVersion(org, name, versionTag);
    if (!current) return;
    const pk = policyPk(org);
    await this.call('The policy pack version', () =>
      this.documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: versionSk(name, versionTag) } } },
            { Delete: { TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: numberSk(name, current.version) } } },
          ],
        }),
      ),
    );
  }

  async getGroup(org: string, name: string): Promise<PolicyGroupRecord | undefined> {
    return this.getItem<PolicyGroupRecord>('The policy group', policyPk(org), groupSk(name));
  }

  async listGroups(org: string): Promise<PolicyGroupRecord[]> {
    return this.queryPrefix<PolicyGroupRecord>('The policy groups', policyPk(org), GROUP_PREFIX);
  }

  async putGroup(record: PolicyGroupRecord, expectedRevision: number | undefined): Promise<void> {
    const condition: Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> =
      expectedRevision === undefined
        ? { ConditionExpression: ABSENT, ExpressionAttributeNames: { '#pk': KEY.partition } }
        : { ConditionExpression: AT_REVISION, ExpressionAttributeNames: { '#revision': 'revision' }, ExpressionAttributeValues: { ':expected': expectedRevision } };
    await this.conditional(`Policy group '${record.name}' changed since it was read: read it again and retry.`, () =>
      this.documents.send(
        new PutCommand({ TableName: this.table, Item: { [KEY.partition]: policyPk(record.org), [KEY.sort]: groupSk(record.name), ...record }, ...condition }),
      ),
    );
  }

  async deleteGroup(org: string, name: string): Promise<void> {
    await this.call('The policy group', () =>
      this.documents.send(new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: policyPk(org), [KEY.sort]: groupSk(name) } })),
    );
  }

  async recordStackResults(record: StackPolicyResultsRecord): Promise<void> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: { [KEY.partition]: policyPk(record.org), [KEY.sort]: resultsSk(record.stackId), ...record },
          ConditionExpression: 'attribute_not_exists(#pk) OR #version < :version',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#version': 'version' },
          ExpressionAttributeValues: { ':version': record.version },
        }),
      );
    } catch (error) {
      // An equal or later version is recorded already: that one stays (a retried or overtaken completion).
      if (failedOnCondition(error)) return;
      throw translateDynamoDbError(error, 'The policy results');
    }
  }

  async listStackResults(org: string): Promise<StackPolicyResultsRecord[]> {
    return this.queryPrefix<StackPolicyResultsRecord>('The policy results', policyPk(org), RESULTS_PREFIX);
  }

  private async getItem<T>(what: string, pk: string, sk: string): Promise<T | undefined> {
    const result = await this.call(what, () =>
      this.documents.send(new GetCommand({ TableName: this.table, Key: { [KEY.partition]: pk, [KEY.sort]: sk }, ConsistentRead: true })),
    );
    return result.Item ? withoutKeys<T>(result.Item) : undefined;
  }

  private async queryPrefix<T>(what: string, pk: string, prefix: string): Promise<T[]> {
    const items = await this.call(what, () => queryByPrefix(this.documents, this.table, pk, prefix));
    return items.map((item) => withoutKeys<T>(item));
  }

  private async conditional<T>(conflict: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError(conflict, {}, { cause: error });
      throw translateDynamoDbError(error, 'The policy store');
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
