import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Props for {@link DataKey}. */
export interface DataKeyProps {
  /** Alias without the `alias/` prefix. */
  readonly aliasName?: string;
  /** How often KMS rotates the key material; old material stays usable for decryption. */
  readonly rotationPeriod?: Duration;
}

/**
 * The one customer-managed KMS key of a deployment: it wraps each stack's data keys (through the key service, with
 * an encryption context) and encrypts the state bucket (through S3, with the `aws:s3:arn` context). One key keeps an
 * idle deployment at about $1/month; IAM statements, not separate keys, keep the two uses apart.
 */
export class DataKey extends Construct {
  /** The key itself. */
  readonly key: kms.Key;
  /** Its alias, for humans and the console. */
  readonly alias: kms.Alias;

  constructor(scope: Construct, id: string, props: DataKeyProps = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Stackyard: per-stack data keys and state bucket encryption',
      enableKeyRotation: true,
      rotationPeriod: props.rotationPeriod ?? Duration.days(365),
      // Destroying the key would make every checkpoint and secret unreadable; a redeploy must never do that.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.alias = new kms.Alias(this, 'Alias', {
      aliasName: `alias/${props.aliasName ?? 'stackyard'}`,
      targetKey: this.key,
    });
  }
}
