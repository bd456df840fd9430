import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UnavailableError } from '../../core/errors.js';
import type { RunNotice, RunQueue } from '../../ports/run-queue.js';

/** The queue URL the API's functions announce runs on (the CDK app sets it on the functions that queue runs). */
export const RUN_QUEUE_URL_VARIABLE = 'STACKYARD_RUN_QUEUE_URL';

/** A queue notice's body: the one JSON shape the API writes and the CodeBuild launcher reads. */
export function runNoticeBody(notice: RunNotice): string {
  return JSON.stringify({ runId: notice.runId, stackId: notice.stackId, version: notice.version });
}

/** Reads a body `runNoticeBody` wrote; anything else is `undefined` (a stray message is dropped, not retried). */
export function parseRunNotice(body: string): RunNotice | undefined {
  try {
    const value = JSON.parse(body) as Partial<RunNotice>;
    if (typeof value.runId !== 'string' || typeof value.stackId !== 'string' || typeof value.version !== 'number') return undefined;
    return { runId: value.runId, stackId: value.stackId, version: value.version };
  } catch {
    return undefined;
  }
}

/**
 * The run queue on SQS: one message per queued run. Region, credentials and AWS_ENDPOINT_URL_SQS come from the SDK's
 * own chain. A refused or unreachable queue is `UnavailableError` (503, retry later): the caller fails the run.
 */
export class SqsRunQueue implements RunQueue {
  constructor(
    private readonly queueUrl: string,
    private readonly sqs: SQSClient = new SQSClient({ requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 } }),
  ) {}

  async announce(notice: RunNotice): Promise<void> {
    try {
      await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: runNoticeBody(notice) }));
    } catch (error) {
      throw new UnavailableError(`The run queue did not take deployment ${notice.version}: ${(error as Error).message}. Queue the run again.`);
    }
  }
}

/** The run queue of STACKYARD_RUN_QUEUE_URL, or `undefined` when it is not set (serve: runners poll the store). */
export function runQueueFromEnv(env: NodeJS.ProcessEnv): RunQueue | undefined {
  const url = env[RUN_QUEUE_URL_VARIABLE]?.trim();
  return url ? new SqsRunQueue(url) : undefined;
}
