import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsServer, type SqsStandIn } from '../../../test/support/sqs-server.js';
import { UnavailableError } from '../../core/errors.js';
import { parseRunNotice, runQueueFromEnv, SqsRunQueue } from './sqs-run-queue.js';

let sqs: SqsStandIn;
let client: SQSClient;

beforeAll(async () => {
  sqs = await startSqsServer();
  client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});

afterAll(async () => {
  client.destroy();
  await sqs.stop();
});

describe('SqsRunQueue', () => {
  it('sends one message per queued run, which the launcher reads back as the same notice', async () => {
    // Arrange
    const queue = new SqsRunQueue(sqs.createQueue('runs'), client);
    const notice = { runId: '0b9a6c8e-2f4e-4f7e-9b7e-5f1f3c2d1a00', stackId: 'stack-1', version: 7 };

    // Act
    await queue.announce(notice);

    // Assert
    const held = sqs.messages('runs');
    expect(held).toHaveLength(1);
    expect(parseRunNotice(held[0]!.body)).toEqual(notice);
  });

  it('turns a queue that refuses the message into UnavailableError naming the run', async () => {
    const queue = new SqsRunQueue(sqs.queueUrl('no-such-queue'), client);

    const sent = queue.announce({ runId: 'r', stackId: 's', version: 3 });

    await expect(sent).rejects.toThrow(UnavailableError);
    await expect(sent).rejects.toThrow(/deployment 3/);
  });
});

describe('parseRunNotice', () => {
  it('drops bodies that are not a run notice', () => {
    expect(parseRunNotice('not json')).toBeUndefined();
    expect(parseRunNotice('{"runId":"r","stackId":"s"}')).toBeUndefined();
  });
});

describe('runQueueFromEnv', () => {
  it('has no queue without STACKYARD_RUN_QUEUE_URL and an SQS queue with it', () => {
    expect(runQueueFromEnv({})).toBeUndefined();
    expect(runQueueFromEnv({ STACKYARD_RUN_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/runs' })).toBeInstanceOf(SqsRunQueue);
  });
});
