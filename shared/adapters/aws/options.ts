import type { AwsClients } from './clients.js';

/** Where the AWS adapters keep their data. */
export interface AwsStorageOptions {
  /** DynamoDB table (see `stackyardTableDefinition`). */
  table: string;
  /** S3 bucket for checkpoints and other immutable objects. */
  bucket: string;
  /** KMS key id, key ARN, alias (`alias/<name>`) or alias ARN used for the per-stack data keys. */
  kmsKeyId: string;
  /** Clock (epoch ms) for leases and caches; tests inject one they can advance. */
  now?: () => number;
  /** Pre-built clients; by default new ones from the SDK's configuration chain and env (`createAwsClients`). */
  clients?: AwsClients;
}

/** Reads STACKYARD_TABLE, STACKYARD_BUCKET and STACKYARD_KMS_KEY_ID (as set by the CDK stack and the stand-ins). */
export function awsStorageOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AwsStorageOptions {
  const missing = ['STACKYARD_TABLE', 'STACKYARD_BUCKET', 'STACKYARD_KMS_KEY_ID'].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`AWS storage is not configured: set ${missing.join(', ')}.`);
  return { table: env.STACKYARD_TABLE!, bucket: env.STACKYARD_BUCKET!, kmsKeyId: env.STACKYARD_KMS_KEY_ID! };
}
