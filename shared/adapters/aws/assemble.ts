import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { absent } from '../../core/absent.js';
import type { CheckpointStore, KeyService, PolicyPackageStore, SourceArchiveStore, Storage } from '../../ports/index.js';
import { coalesceReads } from './read-coalescing.js';
import type { AwsTableStores, TableStore } from './table-stores.js';

/** The table half of the AWS storage: every store but checkpoints and keys lives in the one DynamoDB table. */
export interface AwsTableParts {
  table: string;
  /** Clock (epoch ms) for leases and sessions. */
  now: () => number;
  documents: DynamoDBDocumentClient;
  /**
   * The table stores to build (table-stores.ts): all of them for `serve` and the CLI, only those its routes use for a
   * Lambda function (see `functions/lambda-storage.ts`).
   */
  stores: readonly TableStore[];
  /** Releases the clients the caller built (nothing when the caller keeps them). */
  close(): void;
}

/** The S3 and KMS halves; a Lambda function whose routes never use one leaves it out (see `functions/lambda-storage.ts`). */
export interface AwsObjectParts {
  checkpoints?: CheckpointStore;
  keys?: KeyService;
  /** Policy pack tarballs, in the same bucket as the checkpoints. */
  policyPackages?: PolicyPackageStore;
  /** Deployment runs' program archives, in the same bucket. */
  sourceArchives?: SourceArchiveStore;
}

const TABLE_STORE_NAMES: Record<keyof AwsTableStores, string> = {
  stacks: 'stack store (DynamoDB)',
  updates: 'update store (DynamoDB)',
  leases: 'lease store (DynamoDB)',
  identity: 'identity store (DynamoDB)',
  hooks: 'hook store (DynamoDB)',
  consoleSessions: 'console session store (DynamoDB)',
  audit: 'audit store (DynamoDB)',
  environments: 'environment store (DynamoDB)',
  deployments: 'deployment store (DynamoDB)',
  drift: 'drift store (DynamoDB)',
  approvals: 'approval store (DynamoDB)',
  schedules: 'schedule store (DynamoDB)',
  policies: 'policy store (DynamoDB)',
};

/**
 * Puts the stores together. This module imports no SDK client and no store adapter, so a bundle carries only the
 * clients and table stores it passes. A part left out answers every call with an error naming it (`absent`).
 */
export function assembleAwsStorage(table: AwsTableParts, objects: AwsObjectParts): Storage {
  const documents = coalesceReads(table.documents);
  const built: Partial<AwsTableStores> = Object.assign({}, ...table.stores.map((store) => store(documents, table.table, table.now)));
  const tableStores = Object.fromEntries(
    Object.entries(TABLE_STORE_NAMES).map(([name, what]) => [name, built[name as keyof AwsTableStores] ?? absent<object>(what)]),
  ) as AwsTableStores;
  return {
    ...tableStores,
    checkpoints: objects.checkpoints ?? absent<CheckpointStore>('checkpoint store (S3)'),
    keys: objects.keys ?? absent<KeyService>('key service (KMS)'),
    policyPackages: objects.policyPackages ?? absent<PolicyPackageStore>('policy package store (S3)'),
    sourceArchives: objects.sourceArchives ?? absent<SourceArchiveStore>('source archive store (S3)'),
    async close() {
      table.close();
    },
  };
}
