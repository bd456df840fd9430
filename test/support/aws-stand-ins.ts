import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { createStackyardTable } from '../../shared/adapters/aws/table.js';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';
import { startKmsServer, type KmsStandIn } from './kms-server.js';
import { startS3rver, type S3Local } from './s3rver.js';

/** Local stand-ins for DynamoDB, S3 and KMS, with a table, a bucket and a key ready to use. */
export interface AwsStandIns {
  /**
   * Environment for the AWS SDK and Stackyard: AWS_ENDPOINT_URL_DYNAMODB/_S3/_KMS, AWS_REGION, credentials
   * (`S3RVER`, which s3rver requires), STACKYARD_TABLE, STACKYARD_BUCKET, STACKYARD_KMS_KEY_ID. Pass it to child
   * processes, or apply it to this process with {@link applyEnv}.
   */
  env: Record<string, string>;
  table: string;
  bucket: string;
  /** UUID of the seeded KMS key (also reachable as `alias/stackyard-test`). */
  kmsKeyId: string;
  dynamodb: DynamoDbLocal;
  s3: S3Local;
  kms: KmsStandIn;
  /** A fresh table on the same DynamoDB Local (for suites that want isolation). */
  createTable(name?: string): Promise<string>;
  /** A fresh bucket on the same s3rver. */
  createBucket(name?: string): Promise<string>;
  stop(): Promise<void>;
}

export const REGION = 'us-east-1';
export const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** SDK clients for DynamoDB Local and s3rver at the given endpoints, set up as both stand-ins need. */
export function standInClients(dynamodbEndpoint: string, s3Endpoint: string): { ddbClient: DynamoDBClient; s3Client: S3Client } {
  const ddbClient = new DynamoDBClient({ endpoint: dynamodbEndpoint, region: REGION, credentials: CREDENTIALS });
  const s3Client = new S3Client({
    endpoint: s3Endpoint,
    region: REGION,
    credentials: CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { ddbClient, s3Client };
}

/** Starts DynamoDB Local, s3rver and the KMS stand-in concurrently on free ports (about 2-3 s). */
export async function startAwsStandIns(): Promise<AwsStandIns> {
  const started = await Promise.allSettled([startDynamoDbLocal(), startS3rver(), startKmsServer()]);
  const stops = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value.stop] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.allSettled(stops.map((stop) => stop()));
    throw failure.reason;
  }
  const [dynamodb, s3, kms] = started.map((result) => (result as PromiseFulfilledResult<unknown>).value) as [
    DynamoDbLocal,
    S3Local,
    KmsStandIn,
  ];
  const { ddbClient, s3Client } = standInClients(dynamodb.endpoint, s3.endpoint);
  const createTable = async (name = `stackyard-${randomUUID().slice(0, 8)}`) => {
    await createStackyardTable(ddbClient, name);
    return name;
  };
  const createBucket = async (name = `stackyard-${randomUUID().slice(0, 8)}`) => {
    await s3Client.send(new CreateBucketCommand({ Bucket: name }));
    return name;
  };
  const stop = async () => {
    ddbClient.destroy();
    s3Client.destroy();
    await Promise.allSettled([dynamodb.stop(), s3.stop(), kms.stop()]);
  };
  try {
    const [table, bucket] = await Promise.all([createTable(), createBucket()]);
    return {
      env: {
        AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        AWS_ENDPOINT_URL_KMS: kms.endpoint,
        AWS_REGION: REGION,
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        STACKYARD_TABLE: table,
        STACKYARD_BUCKET: bucket,
        STACKYARD_KMS_KEY_ID: kms.keyId,
      },
      table,
      bucket,
      kmsKeyId: kms.keyId,
      dynamodb,
      s3,
      kms,
      createTable,
      createBucket,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Copies `env` into `process.env` (for code under test in this process) and returns a function that restores the
 * previous values. Optional: child processes can take `env` directly instead.
 */
export function applyEnv(env: Record<string, string>): () => void {
  const previous = new Map(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
