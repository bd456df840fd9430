import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/errors.js';
import type { ApprovalRule, ApprovalStore, OutboxEvent, PlanRecord } from '../../ports/index.js';
import { outboxPuts } from './dynamodb-hook-store.js';
import { translateDynamoDbError } from './errors.js';
import { APPROVALS_REQUIRED_SK, approvalRuleSk, approvalRulesPk, approvalsPk, PLAN_PREFIX, planSk } from './keys.js';
import { failedOnCondition, queryByPrefix, withoutKeys } from './queries.js';
import { KEY, putNew } from './table.js';

/** A plan write applies only at the revision its writer read: of two approvals of the last slot, one commits. */
const PLAN_AT_REVISION = '#revision = :expected';



/**
 * Requirements and plans as items of the Stackyard table: `APPROVALS#<stackId>` holds `REQUIRED` and `PLAN#<id>`;
 * an organization's rules are `RULE#[stacks, tag]` items of `APPROVALRULES#<org>`. A plan write with hook events is
 * one transaction with their outbox puts.
 */
export class DynamoDbApprovalStore implements ApprovalStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async getStackRequirement(stackId: string): Promise<number | undefined> {
    const result = await this.call('The approval requirement', () =>
      this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: approvalsPk(stackId), [KEY.sort]: APPROVALS_REQUIRED_SK }, ConsistentRead: true }),
      ),
    );
    return result.Item ? Number(result.Item.required) : undefined;
  }

  async putStackRequirement(stackId: string, required: number): Promise<void> {
    await this.call('The approval requirement', () =>
      this.documents.send(
        new PutCommand({ TableName: this.table, Item: { [KEY.partition]: approvalsPk(stackId), [KEY.sort]: APPROVALS_REQUIRED_SK, required } }),
      ),
    );
  }

  async deleteStackRequirement(stackId: string): Promise<void> {
    await this.call('The approval requirement', () =>
      this.documents.send(new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: approvalsPk(stackId), [KEY.sort]: APPROVALS_REQUIRED_SK } })),
    );
  }

  async listRules(org: string): Promise<ApprovalRule[]> {
    const items = await this.queryAll('The approval rules', approvalRulesPk(org), 'RULE#', true);
    return items.map((item) => ({
      required: Number(item.required),
      ...(typeof item.stacks === 'string' ? { stacks: item.stacks } : {}),
      ...(typeof item.tag === 'string' ? { tag: item.tag } : {}),
    }));
  }

  async putRule(org: string, rule: ApprovalRule): Promise<void> {
    await this.call('The approval rule', () =>
      this.documents.send(
        new PutCommand({ TableName: this.table, Item: { [KEY.partition]: approvalRulesPk(org), [KEY.sort]: approvalRuleSk(rule.stacks, rule.tag), ...rule } }),
      ),
    );
  }

  async deleteRule(org: string, key: Pick<ApprovalRule, 'stacks' | 'tag'>): Promise<void> {
    await this.call('The approval rule', () =>
      this.documents.send(new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: approvalRulesPk(org), [KEY.sort]: approvalRuleSk(key.stacks, key.tag) } })),
    );
  }

  async createPlan(plan: PlanRecord, events?: readonly OutboxEvent[]): Promise<void> {
    const put = { Put: putNew(this.table, { [KEY.partition]: approvalsPk(plan.stackId), [KEY.sort]: planSk(plan.id), ...plan }) };
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: [put, ...outboxPuts(this.table, events)] }));
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError(`Plan ${plan.id} already exists.`, {}, { cause: error });
      throw translateDynamoDbError(error, 'The plan');
    }
  }

  async getPlan(stackId: string, id: string): Promise<PlanRecord | undefined> {
    const result = await this.call('The plan', () =>
      this.documents.send(new GetCommand({ TableName: this.table, Key: { [KEY.partition]: approvalsPk(stackId), [KEY.sort]: planSk(id) }, ConsistentRead: true })),
    );
    return result.Item ? withoutKeys<PlanRecord>(result.Item) : undefined;
  }

  async listPlans(stackId: string, limit: number): Promise<PlanRecord[]> {
    const items = await this.queryAll('The plans', approvalsPk(stackId), PLAN_PREFIX, false, limit);
    return items.map((item) => withoutKeys<PlanRecord>(item));
  }

  async updatePlan(plan: PlanRecord, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<PlanRecord> {
    const put = {
      Put: {
        TableName: this.table,
        Item: { [KEY.partition]: approvalsPk(plan.stackId), [KEY.sort]: planSk(plan.id), ...plan },
        ConditionExpression: PLAN_AT_REVISION,
        ExpressionAttributeNames: { '#revision': 'revision' },
        ExpressionAttributeValues: { ':expected': expectedRevision },
      },
    };
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: [put, ...outboxPuts(this.table, events)] }));
      return plan;
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError(`Plan ${plan.id} changed since it was read: read it again and retry.`, {}, { cause: error });
      throw translateDynamoDbError(error, 'The plan');
    }
  }

  /** Items of a partition whose sort key starts with `prefix`, in key order (or reversed), at most `limit`. */
  private queryAll(what: string, pk: string, prefix: string, ascending: boolean, limit?: number): Promise<Record<string, unknown>[]> {
    return this.call(what, () => queryByPrefix(this.documents, this.table, pk, prefix, { ascending, ...(limit !== undefined ? { limit } : {}) }));
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
