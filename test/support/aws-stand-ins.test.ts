import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DescribeKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GenerateDataKeyWithoutPlaintextCommand,
  KMSClient,
} from '@aws-sdk/client-kms';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsStandIns, type AwsStandIns } from './aws-stand-ins.js';

let standIns: AwsStandIns;
let kms: KMSClient;
let s3: S3Client;
let ddb: DynamoDBClient;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  const common = { region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };
  kms = new KMSClient({ ...common, endpoint: standIns.env.AWS_ENDPOINT_URL_KMS });
  ddb = new DynamoDBClient({ ...common, endpoint: standIns.env.AWS_ENDPOINT_URL_DYNAMODB });
  s3 = new S3Client({
    ...common,
    endpoint: standIns.env.AWS_ENDPOINT_URL_S3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});

afterAll(async () => {
  kms?.destroy();
  s3?.destroy();
  ddb?.destroy();
  await standIns?.stop();
});

async function errorName(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).name;
  }
  return 'no error';
}

describe('DynamoDB Local', () => {
  it('has the Stackyard table with TTL enabled', async () => {
    const ttl = await ddb.send(new DescribeTimeToLiveCommand({ TableName: standIns.table }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });
  });
});

describe('s3rver with conditional writes', () => {
  it('refuses IfNoneMatch:* on an existing key and keeps the first body', async () => {
    const put = (body: string) =>
      s3.send(new PutObjectCommand({ Bucket: standIns.bucket, Key: 'a/b.txt', Body: body, IfNoneMatch: '*' }));
    await put('first');
    expect(await errorName(put('second'))).toBe('PreconditionFailed');
    const got = await s3.send(new GetObjectCommand({ Bucket: standIns.bucket, Key: 'a/b.txt' }));
    expect(await got.Body?.transformToString()).toBe('first');
  });

  it('lets exactly one of 20 concurrent conditional puts win', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        s3.send(new PutObjectCommand({ Bucket: standIns.bucket, Key: 'race', Body: `w${i}`, IfNoneMatch: '*' })),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });

  it('paginates listings', async () => {
    await Promise.all(
      ['p/1', 'p/2', 'p/3'].map((Key) => s3.send(new PutObjectCommand({ Bucket: standIns.bucket, Key, Body: Key }))),
    );
    const first = await s3.send(new ListObjectsV2Command({ Bucket: standIns.bucket, Prefix: 'p/', MaxKeys: 2 }));
    const second = await s3.send(
      new ListObjectsV2Command({ Bucket: standIns.bucket, Prefix: 'p/', ContinuationToken: first.NextContinuationToken }),
    );
    expect([...(first.Contents ?? []), ...(second.Contents ?? [])].map((object) => object.Key)).toEqual(['p/1', 'p/2', 'p/3']);
  });
});

describe('KMS stand-in', () => {
  const context = { stack: 'id-1' };

  it('round-trips a data key by UUID, key ARN and alias', async () => {
    const generated = await kms.send(
      new GenerateDataKeyCommand({ KeyId: standIns.kmsKeyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    expect(generated.Plaintext).toHaveLength(32);
    for (const KeyId of [standIns.kmsKeyId, generated.KeyId, standIns.kms.alias, undefined]) {
      const decrypted = await kms.send(
        new DecryptCommand({ CiphertextBlob: generated.CiphertextBlob, EncryptionContext: context, KeyId }),
      );
      expect(Buffer.from(decrypted.Plaintext!)).toEqual(Buffer.from(generated.Plaintext!));
    }
  });

  it('answers with AWS error names', async () => {
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({ KeyId: standIns.kms.alias, Plaintext: Buffer.from('secret'), EncryptionContext: context }),
    );
    const tampered = Buffer.from(CiphertextBlob!);
    tampered[tampered.length - 1] ^= 1;
    const other = await kms.send(new CreateKeyCommand({}));
    expect(await errorName(kms.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: { stack: 'id-2' } })))).toBe(
      'InvalidCiphertextException',
    );
    expect(await errorName(kms.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context })))).toBe(
      'InvalidCiphertextException',
    );
    expect(
      await errorName(
        kms.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: context, KeyId: other.KeyMetadata!.KeyId })),
      ),
    ).toBe('IncorrectKeyException');
    expect(await errorName(kms.send(new DescribeKeyCommand({ KeyId: 'alias/missing' })))).toBe('NotFoundException');
    expect(await errorName(kms.send(new GenerateDataKeyCommand({ KeyId: standIns.kmsKeyId })))).toBe('ValidationException');
    expect(
      await errorName(kms.send(new CreateAliasCommand({ AliasName: standIns.kms.alias, TargetKeyId: other.KeyMetadata!.KeyId }))),
    ).toBe('AlreadyExistsException');
  });

  it('creates keys and aliases and describes them', async () => {
    const created = await kms.send(new CreateKeyCommand({ Description: 'test' }));
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/extra', TargetKeyId: created.KeyMetadata!.Arn }));
    const described = await kms.send(new DescribeKeyCommand({ KeyId: 'arn:aws:kms:us-east-1:000000000000:alias/extra' }));
    expect(described.KeyMetadata).toMatchObject({ KeyId: created.KeyMetadata!.KeyId, Enabled: true });
    const withoutPlaintext = await kms.send(
      new GenerateDataKeyWithoutPlaintextCommand({ KeyId: 'alias/extra', NumberOfBytes: 16 }),
    );
    expect(withoutPlaintext).not.toHaveProperty('Plaintext');
    const decrypted = await kms.send(new DecryptCommand({ CiphertextBlob: withoutPlaintext.CiphertextBlob }));
    expect(decrypted.Plaintext).toHaveLength(16);
  });
});
