import type { Storage } from '../../ports/index.js';
import { assembleAwsStorage } from './assemble.js';
import { createAwsClients } from './clients.js';
import { KmsKeyService } from './kms-key-service.js';
import type { AwsStorageOptions } from './options.js';
import { S3CheckpointStore } from './s3-checkpoint-store.js';
import { S3PolicyPackageStore } from './s3-policy-package-store.js';
import { S3SourceArchiveStore } from './s3-source-archive-store.js';
import { ALL_TABLE_STORES } from './table-stores.js';

export { createStackyardTable, stackyardTableDefinition, STACKS_BY_NAME_INDEX, TTL_ATTRIBUTE } from './table.js';
export { OBJECT_LAYOUT_VERSION } from './s3-checkpoint-store.js';
export { hashToken } from './dynamodb-lease-store.js';
export { backfillMemberMirrors, type MemberMirrorBackfill } from './member-mirrors.js';
export { backfillTokenTtl, type TokenTtlBackfill } from './token-ttl-backfill.js';

export { awsStorageOptionsFromEnv, type AwsStorageOptions } from './options.js';

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
  return assembleAwsStorage(
    {
      table: options.table,
      now,
      documents: clients.documents,
      stores: ALL_TABLE_STORES,
      close: () => (options.clients ? undefined : clients.destroy()),
    },
    {
      checkpoints: new S3CheckpointStore(clients.s3, options.bucket),
      policyPackages: new S3PolicyPackageStore(clients.s3, options.bucket),
      sourceArchives: new S3SourceArchiveStore(clients.s3, options.bucket),
      keys: new KmsKeyService(clients.kms, options.kmsKeyId, now),
    },
  );
}

export { createAwsClients, type AwsClients } from './clients.js';
export { assembleAwsStorage, type AwsTableParts, type AwsObjectParts } from './assemble.js';
