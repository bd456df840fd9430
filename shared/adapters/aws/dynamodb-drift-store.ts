import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../core/errors.js';
import type { DriftRemediation, DriftRunRecord, DriftStore } from '../../ports/drift-store.js';
import { errorName, translateDynamoDbError } from './errors.js';
import { KEY, putNew } from './table.js';

const driftPk = (stackId: string) => `DRIFT#${stackId}`;
/** Sorted by start time, so a query newest-first is the list Pulumi's Drift tab shows. */
const runSk = (run: Pick<DriftRunRecord, 'created' | 'id'>) => `RUN#${String(run.created).padStart(15, '0')}#${run.id}`;

/** Drift runs as items of the Stackyard table: `DRIFT#<stackId>` / `RUN#<created>#<id>`, each put only if absent. */
export class DynamoDbDriftStore implements DriftStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async recordRun(run: DriftRunRecord): Promise<void> {
    try {
      await this.documents.send(new PutCommand(putNew(this.table, { [KEY.partition]: driftPk(run.stackId), [KEY.sort]: runSk(run), ...run })));
    } catch (error) {
      // Recording the same preview again keeps the first record.
      if (errorName(error) === 'ConditionalCheckFailedException') return;
      throw translateDynamoDbError(error, 'The drift run');
    }
  }

  async recordRemediation(run: Pick<DriftRunRecord, 'stackId' | 'created' | 'id'>, remediation: DriftRemediation): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: driftPk(run.stackId), [KEY.sort]: runSk(run) },
          UpdateExpression: 'SET #remediation = :remediation',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#remediation': 'remediateUpdate', '#pk': KEY.partition },
          ExpressionAttributeValues: { ':remediation': remediation },
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new NotFoundError(`Drift run '${run.id}' not found.`);
      throw translateDynamoDbError(error, 'The drift run');
    }
  }

  async listRuns(stackId: string, page: { limit: number; skip: number }): Promise<{ runs: DriftRunRecord[]; total: number }> {
    const runs: DriftRunRecord[] = [];
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.query(stackId, start);
      for (const item of result.Items ?? []) {
        if (total >= page.skip && runs.length < page.limit) {
          const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...run } = item;
          runs.push(run as DriftRunRecord);
        }
        total++;
      }
      start = result.LastEvaluatedKey;
    } while (start);
    return { runs, total };
  }

  private async query(stackId: string, start: Record<string, unknown> | undefined) {
    try {
      return await this.documents.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :runs)',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
          ExpressionAttributeValues: { ':pk': driftPk(stackId), ':runs': 'RUN#' },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
    } catch (error) {
      throw translateDynamoDbError(error, 'The drift runs');
    }
  }
}
