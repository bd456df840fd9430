import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { absent } from '../../core/absent.js';
import type { CheckpointStore, KeyService, Storage } from '../../ports/index.js';
import { DynamoDbAuditStore } from './dynamodb-audit-store.js';
import { DynamoDbConsoleSessionStore } from './dynamodb-console-session-store.js';
import { DynamoDbHookStore } from './dynamodb-hook-store.js';
import { DynamoDbIdentityStore } from './dynamodb-identity-store.js';
import { DynamoDbLeaseStore } from './dynamodb-lease-store.js';
import { DynamoDbStackStore } from './dynamodb-stack-store.js';
import { DynamoDbUpdateStore } from './dynamodb-update-store.js';
import { coalesceReads } from './read-coalescing.js';

/** The table half of the AWS storage: every store but checkpoints and keys lives in the one DynamoDB table. */
export interface AwsTableParts {
  table: string;
  /** Clock (epoch ms) for leases and sessions. */
  now: () => number;
  documents: DynamoDBDocumentClient;
  /** Releases the clients the caller built (nothing when the caller keeps them). */
  close(): void;
}

/** The S3 and KMS halves; a Lambda function whose routes never use one leaves it out (see `functions/lambda-storage.ts`). */
export interface AwsObjectParts {
  checkpoints?: CheckpointStore;
  keys?: KeyService;
}

/**
 * Puts the stores together. This module imports no SDK client, so a bundle that passes no S3 or KMS adapter carries
 * neither client. A part left out answers every call with an error naming it (`absent`).
 */
export function assembleAwsStorage(table: AwsTableParts, objects: AwsObjectParts): Storage {
  const documents = coalesceReads(table.documents);
  return {
    checkpoints: objects.checkpoints ?? absent<CheckpointStore>('checkpoint store (S3)'),
    stacks: new DynamoDbStackStore(documents, table.table),
    updates: new DynamoDbUpdateStore(documents, table.table),
    leases: new DynamoDbLeaseStore(documents, table.table, table.now),
    keys: objects.keys ?? absent<KeyService>('key service (KMS)'),
    identity: new DynamoDbIdentityStore(documents, table.table),
    hooks: new DynamoDbHookStore(documents, table.table),
    consoleSessions: new DynamoDbConsoleSessionStore(documents, table.table, table.now),
    audit: new DynamoDbAuditStore(documents, table.table),
    async close() {
      table.close();
    },
  };
}
