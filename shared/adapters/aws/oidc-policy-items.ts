import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError, OidcPolicyLimitError } from '../../core/errors.js';
import type { OidcPolicyRecord } from '../../ports/identity-store.js';
import { cancellationCodes, translateWriteError } from './conditional-update.js';
import { translateDynamoDbError } from './errors.js';
import { OIDC_POLICY_COUNT_SK, OIDC_POLICY_PREFIX, oidcPolicySk, orgPk } from './keys.js';
import { queryByPrefix } from './queries.js';
import { KEY, putNew } from './table.js';

/** The counter item's attribute: how many trust policies the organization has. */
const COUNT = 'policies';
/** Tries of a transaction that DynamoDB cancels because another one on the counter was in flight. */
const CONFLICT_TRIES = 5;

/**
 * An organization's OIDC trust policies (`ORG#<org>` / `OIDCPOLICY#<id>`) and their count (`ORG#<org>` /
 * `OIDCPOLICYCOUNT`). Every add and removal changes the policy and the count in one `TransactWriteItems`, the add
 * conditional on the count being under the cap, so concurrent adds never pass it and a refused add writes nothing.
 */
export class OidcPolicyItems {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(policy: OidcPolicyRecord, maxPerOrg: number): Promise<void> {
    const pk = orgPk(policy.org);
    await this.ensureCounter(policy.org);
    try {
      await this.transact([
        { Put: putNew(this.table, { [KEY.partition]: pk, [KEY.sort]: oidcPolicySk(policy.id), ...policy }) },
        {
          Update: {
            TableName: this.table,
            Key: { [KEY.partition]: pk, [KEY.sort]: OIDC_POLICY_COUNT_SK },
            UpdateExpression: 'SET #n = #n + :one',
            ConditionExpression: '#n < :max',
            ExpressionAttributeNames: { '#n': COUNT },
            ExpressionAttributeValues: { ':one': 1, ':max': maxPerOrg },
          },
        },
      ]);
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') {
        throw new ConflictError(`OIDC trust policy ${policy.id} already exists in '${policy.org}'.`, {}, { cause: error });
      }
      if (codes?.[1] === 'ConditionalCheckFailed') throw new OidcPolicyLimitError(maxPerOrg, { cause: error });
      throw translateWriteError(error, 'The OIDC trust policy');
    }
  }

  async list(org: string): Promise<OidcPolicyRecord[]> {
    const items = await this.call('The listing', () => queryByPrefix(this.documents, this.table, orgPk(org), OIDC_POLICY_PREFIX));
    return items
      .map(({ [KEY.partition]: _pk, [KEY.sort]: _sk, ...policy }) => policy as unknown as OidcPolicyRecord)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async delete(org: string, id: string): Promise<void> {
    const pk = orgPk(org);
    await this.ensureCounter(org);
    try {
      await this.transact([
        {
          Delete: {
            TableName: this.table,
            Key: { [KEY.partition]: pk, [KEY.sort]: oidcPolicySk(id) },
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': KEY.partition },
          },
        },
        {
          Update: {
            TableName: this.table,
            Key: { [KEY.partition]: pk, [KEY.sort]: OIDC_POLICY_COUNT_SK },
            UpdateExpression: 'SET #n = #n - :one',
            ConditionExpression: 'attribute_exists(#n)',
            ExpressionAttributeNames: { '#n': COUNT },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ]);
    } catch (error) {
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
        throw new NotFoundError(`OIDC trust policy ${id} of '${org}' does not exist.`, { cause: error });
      }
      throw translateWriteError(error, 'The OIDC trust policy');
    }
  }

  /**
   * Creates the organization's counter from a count of its policies when it has none: organizations that got their
   * policies before the counter existed, and new ones. The count is exact when the create succeeds: every add and
   * removal needs the counter to exist, so none can commit between this read and the conditional create, and a
   * create that loses to another one leaves that one's count.
   */
  private async ensureCounter(org: string): Promise<void> {
    const key = { [KEY.partition]: orgPk(org), [KEY.sort]: OIDC_POLICY_COUNT_SK };
    const { Item } = await this.call('The OIDC trust policy count', () =>
      this.documents.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true })),
    );
    if (Item) return;
    const existing = await this.call('The listing', () =>
      queryByPrefix(this.documents, this.table, orgPk(org), OIDC_POLICY_PREFIX, { keysOnly: true }),
    );
    try {
      await this.documents.send(new PutCommand(putNew(this.table, { ...key, [COUNT]: existing.length })));
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) {
        throw translateDynamoDbError(error, 'The OIDC trust policy count');
      }
    }
  }

  /**
   * Concurrent adds and removals all write the counter item, and DynamoDB cancels a transaction that meets another
   * one in flight on it (`TransactionConflict`) without deciding its conditions: those are tried again, after a
   * short random pause, so the cap decides every add. Any other outcome is the caller's.
   */
  private async transact(items: NonNullable<TransactWriteCommandInput['TransactItems']>): Promise<void> {
    for (let tried = 1; ; tried += 1) {
      try {
        await this.documents.send(new TransactWriteCommand({ TransactItems: items }));
        return;
      } catch (error) {
        if (tried >= CONFLICT_TRIES || !cancellationCodes(error)?.includes('TransactionConflict')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * tried));
      }
    }
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
