import type { Storage } from '../../ports/index.js';
import { createAwsClients, type AwsClients } from './clients.js';
import { DynamoDbConsoleSessionStore } from './dynamodb-console-session-store.js';
import { DynamoDbAuditStore } from './dynamodb-audit-store.js';
import { DynamoDbHookStore } from './dynamodb-hook-store.js';
import { DynamoDbIdentityStore } from './dynamodb-identity-store.js';
import { DynamoDbLeaseStore } from './dynamodb-lease-store.js';
import { DynamoDbStackStore } from './dynamodb-stack-store.js';
import { DynamoDbUpdateStore } from './dynamodb-update-store.js';
import { KmsKeyService } from './kms-key-service.js';
import { coalesceReads } from './read-coalescing.js';
import { S3CheckpointStore } from './s3-checkpoint-store.js';

export { createStackyardTable, stackyardTableDefinition, STACKS_BY_NAME_INDEX, TTL_ATTRIBUTE } from './table.js';
export { OBJECT_LAYOUT_VERSION } from './s3-checkpoint-store.js';
export { hashToken } from './dynamodb-lease-store.js';

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

/**
 * Builds the AWS-backed Storage (DynamoDB single table, S3, KMS). Create it once per process: it owns its SDK
 * clients, and `close()` releases them.
 */
export function createAwsStorage(options: AwsStorageOptions): Storage {
  for (const field of ['table', 'bucket', 'kmsKeyId'] as const) {
    if (!options[field]) throw new Error(`createAwsStorage needs '${field}' (STACKYARD_TABLE/_BUCKET/_KMS_KEY_ID).`);
  }
  const now = options.now ?? Date.now;
  const clients = options.clients ?? createAwsClients();
  const documents = coalesceReads(clients.documents);
  return {
    checkpoints: new S3CheckpointStore(clients.s3, options.bucket),
    stacks: new DynamoDbStackStore(documents, options.table),
    updates: new DynamoDbUpdateStore(documents, options.table),
    leases: new DynamoDbLeaseStore(documents, options.table, now),
    keys: new KmsKeyService(clients.kms, options.kmsKeyId, now),
    identity: new DynamoDbIdentityStore(documents, options.table),
    hooks: new DynamoDbHookStore(documents, options.table),
    consoleSessions: new DynamoDbConsoleSessionStore(documents, options.table, now),
    audit: new DynamoDbAuditStore(documents, options.table),
    async close() {
      if (!options.clients) clients.destroy();
    },
  };
}

export { createAwsClients, type AwsClients } from './clients.js';
