import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { S3CheckpointStore } from '../../shared/adapters/aws/s3-checkpoint-store.js';
import type { CheckpointStore } from '../../shared/ports/checkpoint-store.js';
import { startS3rver } from './s3rver.js';

/** The S3 checkpoint store on a fresh bucket of its own s3rver, for tests of what the journal stores there. */
export interface S3rverCheckpointStore {
  store: CheckpointStore;
  stop(): Promise<void>;
}

/** Starts s3rver, creates a bucket named `<prefix>-<random>` and returns the S3 checkpoint store over it. */
export async function startS3rverCheckpointStore(prefix: string): Promise<S3rverCheckpointStore> {
  const s3Local = await startS3rver();
  const s3 = new S3Client({
    endpoint: s3Local.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const stop = async () => {
    s3.destroy();
    await s3Local.stop();
  };
  try {
    const bucket = `${prefix}-${randomUUID().slice(0, 8)}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    return { store: new S3CheckpointStore(s3, bucket), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
