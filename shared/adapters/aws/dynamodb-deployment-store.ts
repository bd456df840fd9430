import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/errors.js';
import type {
  DeploymentLogLine,
  DeploymentRun,
  DeploymentSettingsRecord,
  DeploymentStore,
} from '../../ports/deployment-store.js';
import { isClaimedRun } from '../../ports/deployment-store.js';
import { translateDynamoDbError } from './errors.js';
import { KEY, putNew, TTL_ATTRIBUTE } from './table.js';
import { failedOnCondition, withoutKeys } from './queries.js';

const deploymentsPk = (stackId: string) => `DEPLOY#${stackId}`;
const SETTINGS_SK = 'SETTINGS';
const RUN_PREFIX = 'RUN#';
const runSk = (version: number) => `${RUN_PREFIX}${String(version).padStart(10, '0')}`;
const QUEUE_PK = 'DEPLOYQUEUE';
const queueSk = (run: Pick<DeploymentRun, 'created' | 'id'>) => `${String(run.created).padStart(15, '0')}#${run.id}`;
/** Claimed, unfinished runs: where a runner looks for one whose runner was lost. */
const LIVE_PK = 'DEPLOYLIVE';
/** In a stack's partition: the run that last claimed it, so two runs of one stack are never claimed at once. */
const LIVE_MARKER_SK = 'LIVERUN';
/** A push webhook delivery a stack received (hashed: the id is the sender's text). */
const deliverySk = (deliveryId: string) => `DELIVERY#${createHash('sha256').update(deliveryId).digest('hex')}`;
const logPk = (runId: string) => `DEPLOYLOG#${runId}`;
const logSk = (chunk: number) => `CHUNK#${String(chunk).padStart(10, '0')}`;

/** The settings version the caller read is still the stored one (or nothing is stored when it read nothing). */
const SETTINGS_UNCHANGED = '#version = :expected';
const SETTINGS_ABSENT = 'attribute_not_exists(#pk)';
/** A run write applies only at the revision its writer read. */
const RUN_AT_REVISION = '#revision = :expected';
/** A claim takes only a run still queued: of racing claimers, the first commit moves it out of `not-started`. */
const RUN_STILL_QUEUED = '#status = :queued AND #revision = :expected';



/**
 * Settings, runs and logs as items of the Stackyard table: `DEPLOY#<stackId>` holds `SETTINGS` and `RUN#<version>`;
 * each queued run has an index item in the `DEPLOYQUEUE` partition, sorted by queue time, and each claimed one in
 * `DEPLOYLIVE` (with its claim's end), written and removed in the same transaction as the run's status; a log is chunks under `DEPLOYLOG#<runId>`, each created if absent.
 */
export class DynamoDbDeploymentStore implements DeploymentStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async getSettings(stackId: string): Promise<DeploymentSettingsRecord | undefined> {
    const result = await this.call('The deployment settings', () =>
      this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: deploymentsPk(stackId), [KEY.sort]: SETTINGS_SK }, ConsistentRead: true }),
      ),
    );
    return result.Item ? withoutKeys<DeploymentSettingsRecord>(result.Item) : undefined;
  }

  async putSettings(record: DeploymentSettingsRecord, expectedVersion: number | undefined): Promise<void> {
    const item = { [KEY.partition]: deploymentsPk(record.stackId), [KEY.sort]: SETTINGS_SK, ...record };
    const condition: Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> =
      expectedVersion === undefined
        ? { ConditionExpression: SETTINGS_ABSENT, ExpressionAttributeNames: { '#pk': KEY.partition } }
        : { ConditionExpression: SETTINGS_UNCHANGED, ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': expectedVersion } };
    try {
      await this.documents.send(new PutCommand({ TableName: this.table, Item: item, ...condition }));
    } catch (error) {
      if (failedOnCondition(error)) {
        throw new ConflictError('The deployment settings changed since they were read: read them again and retry.', {}, { cause: error });
      }
      throw translateDynamoDbError(error, 'The deployment settings');
    }
  }

  async deleteSettings(stackId: string): Promise<void> {
    await this.call('The deployment settings', () =>
      this.documents.send(new DeleteCommand({ TableName: this.table, Key: { [KEY.partition]: deploymentsPk(stackId), [KEY.sort]: SETTINGS_SK } })),
    );
  }

  async createRun(run: DeploymentRun): Promise<void> {
    const runPut = { Put: putNew(this.table, { [KEY.partition]: deploymentsPk(run.stackId), [KEY.sort]: runSk(run.version), ...run }) };
    const queuePut = { Put: { TableName: this.table, Item: { [KEY.partition]: QUEUE_PK, [KEY.sort]: queueSk(run), stackId: run.stackId, version: run.version } } };
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: run.status === 'not-started' ? [runPut, queuePut] : [runPut] }));
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError(`Run ${run.version} of the stack already exists.`, {}, { cause: error });
      throw translateDynamoDbError(error, 'The run');
    }
  }

  async getRun(stackId: string, id: string): Promise<DeploymentRun | undefined> {
    return (await this.queryRuns(stackId, undefined)).find((run) => run.id === id);
  }

  async listRuns(stackId: string, limit: number): Promise<DeploymentRun[]> {
    return this.queryRuns(stackId, limit);
  }

  async updateRun(run: DeploymentRun, expectedRevision: number): Promise<DeploymentRun> {
    const update = {
      Put: {
        TableName: this.table,
        Item: { [KEY.partition]: deploymentsPk(run.stackId), [KEY.sort]: runSk(run.version), ...run },
        ConditionExpression: RUN_AT_REVISION,
        ExpressionAttributeNames: { '#revision': 'revision' },
        ExpressionAttributeValues: { ':expected': expectedRevision },
      },
    };
    const dequeue = { Delete: { TableName: this.table, Key: { [KEY.partition]: QUEUE_PK, [KEY.sort]: queueSk(run) } } };
    const live = isClaimedRun(run) ? this.livePut(run) : { Delete: { TableName: this.table, Key: { [KEY.partition]: LIVE_PK, [KEY.sort]: run.id } } };
    try {
      await this.documents.send(new TransactWriteCommand({ TransactItems: run.status === 'not-started' ? [update] : [update, dequeue, live] }));
    } catch (error) {
      if (failedOnCondition(error)) throw new ConflictError('The run changed since it was read: read it again and retry.', {}, { cause: error });
      throw translateDynamoDbError(error, 'The run');
    }
    if (run.status !== 'not-started' && !isClaimedRun(run)) await this.releaseMarker(run);
    return run;
  }

  /**
   * Removes the stack's `LIVERUN` marker if it names this finished run, so the stack's next run may be claimed at
   * once. Not in the run's transaction: a marker naming a newer run must stay, and a marker a crash leaves behind
   * only blocks the stack until the claim it recorded ends.
   */
  private async releaseMarker(run: DeploymentRun): Promise<void> {
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { [KEY.partition]: deploymentsPk(run.stackId), [KEY.sort]: LIVE_MARKER_SK },
          ConditionExpression: '#runId = :id',
          ExpressionAttributeNames: { '#runId': 'runId' },
          ExpressionAttributeValues: { ':id': run.id },
        }),
      );
    } catch (error) {
      // The marker names another run (or none is left): nothing of this run's to remove.
      if (!failedOnCondition(error)) throw translateDynamoDbError(error, 'The run');
    }
  }

  /**
   * Oldest first, skipping stacks with a live run (read from the `DEPLOYLIVE` index). Two runners may both read no
   * live run for a stack and try two of its runs at once: the claim's transaction also creates the stack's
   * `LIVERUN` marker, only where none is or the one there has expired, so one of them wins and the other moves on.
   */
  async claimNext(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined> {
    const busy = await this.busyStacks(now);
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.queryPartition('The run queue', QUEUE_PK, { Limit: 50, ExclusiveStartKey: start });
      for (const entry of page.Items ?? []) {
        const stackId = String(entry.stackId);
        if (busy.has(stackId)) continue;
        const run = await this.getRunByVersion(stackId, Number(entry.version));
        if (!run) continue;
        const claimed: DeploymentRun = { ...run, status: 'accepted', claimedBy: runner, claimedUntil, modified: now, revision: run.revision + 1 };
        try {
          await this.documents.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: this.table,
                    Item: { [KEY.partition]: deploymentsPk(run.stackId), [KEY.sort]: runSk(run.version), ...claimed },
                    ConditionExpression: RUN_STILL_QUEUED,
                    ExpressionAttributeNames: { '#status': 'status', '#revision': 'revision' },
                    ExpressionAttributeValues: { ':queued': 'not-started', ':expected': run.revision },
                  },
                },
                { Delete: { TableName: this.table, Key: { [KEY.partition]: QUEUE_PK, [KEY.sort]: entry[KEY.sort] } } },
                this.livePut(claimed),
                this.markerPut(claimed, now),
              ],
            }),
          );
          return claimed;
        } catch (error) {
          if (!failedOnCondition(error)) throw translateDynamoDbError(error, 'The run queue');
          // Another runner took this run, or another run of its stack: that stack is busy now.
          busy.add(stackId);
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return undefined;
  }

  /**
   * Reads the live index, then takes over a run whose claim passed with a write at the revision read: its runner's
   * heartbeat (an `updateRun`) or another recoverer moves the revision, and then this one skips it.
   */
  async claimLost(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.queryPartition('The claimed runs', LIVE_PK, { ExclusiveStartKey: start });
      for (const entry of page.Items ?? []) {
        if (Number(entry.claimedUntil ?? 0) >= now) continue;
        const run = await this.getRunByVersion(String(entry.stackId), Number(entry.version));
        if (!run || !isClaimedRun(run) || (run.claimedUntil ?? 0) >= now) continue;
        try {
          return await this.updateRun({ ...run, claimedBy: runner, claimedUntil, modified: now, revision: run.revision + 1 }, run.revision);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return undefined;
  }

  async recordDelivery(stackId: string, deliveryId: string, now: number, expiresAt: number): Promise<boolean> {
    const item = { [KEY.partition]: deploymentsPk(stackId), [KEY.sort]: deliverySk(deliveryId), expiresAt, [TTL_ATTRIBUTE]: Math.ceil(expiresAt / 1000) };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt < :now',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (failedOnCondition(error)) return false;
      throw translateDynamoDbError(error, 'The webhook delivery');
    }
  }

  async appendLog(runId: string, lines: readonly DeploymentLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    // Chunks are numbered; two appenders racing for one number: the loser reads the end again and takes the next.
    for (;;) {
      const last = await this.queryPartition('The run log', logPk(runId), { ScanIndexForward: false, Limit: 1 });
      const next = last.Items?.[0] ? Number(last.Items[0].chunk) + 1 : 0;
      try {
        await this.documents.send(new PutCommand(putNew(this.table, { [KEY.partition]: logPk(runId), [KEY.sort]: logSk(next), chunk: next, lines })));
        return;
      } catch (error) {
        if (failedOnCondition(error)) continue;
        throw translateDynamoDbError(error, 'The run log');
      }
    }
  }

  async readLog(runId: string, offset: number, count: number): Promise<DeploymentLogLine[]> {
    const lines: DeploymentLogLine[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.queryPartition('The run log', logPk(runId), { ExclusiveStartKey: start });
      for (const item of page.Items ?? []) lines.push(...(item.lines as DeploymentLogLine[]));
      start = page.LastEvaluatedKey;
    } while (start && lines.length < offset + count);
    return lines.slice(offset, offset + count);
  }

  /** Stacks with a claimed run whose claim has not passed. */
  private async busyStacks(now: number): Promise<Set<string>> {
    const busy = new Set<string>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.queryPartition('The claimed runs', LIVE_PK, { ExclusiveStartKey: start });
      for (const entry of page.Items ?? []) if (Number(entry.claimedUntil ?? 0) >= now) busy.add(String(entry.stackId));
      start = page.LastEvaluatedKey;
    } while (start);
    return busy;
  }

  /** The stack's one-live-run marker, created only where none is or the one there expired (see `claimNext`). */
  private markerPut(run: DeploymentRun, now: number) {
    return {
      Put: {
        TableName: this.table,
        Item: { [KEY.partition]: deploymentsPk(run.stackId), [KEY.sort]: LIVE_MARKER_SK, runId: run.id, claimedUntil: run.claimedUntil ?? 0 },
        ConditionExpression: 'attribute_not_exists(#pk) OR #until < :now',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#until': 'claimedUntil' },
        ExpressionAttributeValues: { ':now': now },
      },
    };
  }

  private livePut(run: DeploymentRun) {
    const item = { [KEY.partition]: LIVE_PK, [KEY.sort]: run.id, stackId: run.stackId, version: run.version, claimedUntil: run.claimedUntil ?? 0 };
    return { Put: { TableName: this.table, Item: item } };
  }

  private async getRunByVersion(stackId: string, version: number): Promise<DeploymentRun | undefined> {
    const result = await this.call('The run', () =>
      this.documents.send(
        new GetCommand({ TableName: this.table, Key: { [KEY.partition]: deploymentsPk(stackId), [KEY.sort]: runSk(version) }, ConsistentRead: true }),
      ),
    );
    return result.Item ? withoutKeys<DeploymentRun>(result.Item) : undefined;
  }

  /** A stack's runs newest first; `limit` undefined reads them all. */
  private async queryRuns(stackId: string, limit: number | undefined): Promise<DeploymentRun[]> {
    const runs: DeploymentRun[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.call('The runs', () =>
        this.documents.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :runs)',
            ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
            ExpressionAttributeValues: { ':pk': deploymentsPk(stackId), ':runs': RUN_PREFIX },
            ScanIndexForward: false,
            ConsistentRead: true,
            ExclusiveStartKey: start,
            Limit: limit,
          }),
        ),
      );
      runs.push(...(page.Items ?? []).map((item) => withoutKeys<DeploymentRun>(item)));
      start = page.LastEvaluatedKey;
    } while (start && (limit === undefined || runs.length < limit));
    return limit === undefined ? runs : runs.slice(0, limit);
  }

  /** One page of a partition's items, strongly consistent, in key order unless `options` say otherwise. */
  private queryPartition(what: string, pk: string, options: Pick<QueryCommandInput, 'Limit' | 'ScanIndexForward' | 'ExclusiveStartKey'>) {
    return this.call(what, () =>
      this.documents.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': KEY.partition },
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...options,
        }),
      ),
    );
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw translateDynamoDbError(error, what);
    }
  }
}
