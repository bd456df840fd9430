import { DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { afterAll } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { runStorageContracts } from '../../shared/testing/contracts/index.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';

// One set of real stand-ins (DynamoDB Local, s3rver, our KMS server) serves every suite in this file; the suites
// use random ids, so they can share the table and bucket.
let started: Promise<AwsStandIns> | undefined;
afterAll(async () => {
  if (started) await (await started).stop();
});

runStorageContracts('aws', async () => {
  started ??= startAwsStandIns().then((standIns) => {
    applyEnv(standIns.env);
    return standIns;
  });
  const standIns = await started;
  let time = Date.now();
  const storage = createAwsStorage({
    table: standIns.table,
    bucket: standIns.bucket,
    kmsKeyId: standIns.kmsKeyId,
    now: () => time,
  });
  const dynamodb = new DynamoDBClient({
    endpoint: standIns.dynamodb.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    storage,
    clock: {
      advance(ms: number) {
        time += ms;
      },
      now: () => time,
    },
    async findPlaintext(text: string) {
      let startKey: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await dynamodb.send(new ScanCommand({ TableName: standIns.table, ExclusiveStartKey: startKey }));
        if (JSON.stringify(page.Items ?? []).includes(text)) return true;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return false;
    },
    async cleanup() {
      dynamodb.destroy();
      await storage.close();
    },
  };
});
