import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/** How long a deployment run's program archive is kept in the bucket. */
export const SOURCE_ARCHIVE_RETENTION_DAYS = 30;

/** Props for {@link StateBucket}. */
export interface StateBucketProps {
  /** Key for SSE-KMS; the functions reach it through S3 with the `aws:s3:arn` context only. */
  readonly encryptionKey: kms.IKey;
  /** How long an overwritten or deleted object version is kept before S3 expires it. */
  readonly noncurrentVersionRetention?: Duration;
  /** How many of the newest noncurrent versions of each object are kept regardless of age. */
  readonly noncurrentVersionsToRetain?: number;
}

/**
 * The checkpoint bucket. Stackyard writes each checkpoint version under its own key, so S3 versioning is only a safety
 * net against a bad overwrite or delete; the lifecycle rule keeps that net from growing without bound.
 */
export class StateBucket extends Construct {
  /** The bucket. */
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: StateBucketProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.encryptionKey,
      // One KMS call per bucket key instead of per object: cheaper and far below KMS request quotas.
      bucketKeyEnabled: true,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: props.noncurrentVersionRetention ?? Duration.days(90),
          noncurrentVersionsToRetain: props.noncurrentVersionsToRetain ?? 10,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          // The retention of deployment runs' program archives (docs/deployments.md): a run reads its archive within
          // hours of its upload; a stack's removal deletes them sooner.
          id: 'expire-deployment-source-archives',
          prefix: 'v1/deploysources/',
          expiration: Duration.days(SOURCE_ARCHIVE_RETENTION_DAYS),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(this.bucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'Only the Stackyard functions read and write this bucket, and every request they serve is in the API ' +
          'access log with its request id; server access logs would need a second bucket for no new information. ' +
          'For an object-level audit trail enable CloudTrail S3 data events (docs/operations.md).',
      },
    ]);
  }
}
