import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Storage } from '../../ports/index.js';
import { DynamoDbApprovalStore } from './dynamodb-approval-store.js';
import { DynamoDbAuditStore } from './dynamodb-audit-store.js';
import { DynamoDbDeploymentStore } from './dynamodb-deployment-store.js';
import { DynamoDbDriftStore } from './dynamodb-drift-store.js';
import { DynamoDbScheduleStore } from './dynamodb-schedule-store.js';
import { DynamoDbPolicyStore } from './dynamodb-policy-store.js';
import { DynamoDbEnvironmentStore } from './dynamodb-environment-store.js';
import { DynamoDbConsoleSessionStore } from './dynamodb-console-session-store.js';
import { DynamoDbHookStore } from './dynamodb-hook-store.js';
import { DynamoDbIdentityStore } from './dynamodb-identity-store.js';
import { DynamoDbLeaseStore } from './dynamodb-lease-store.js';
import { DynamoDbStackStore } from './dynamodb-stack-store.js';
import { DynamoDbUpdateStore } from './dynamodb-update-store.js';

/** The stores that live in the one DynamoDB table. */
export type AwsTableStores = Pick<
  Storage,
  'stacks' | 'updates' | 'leases' | 'identity' | 'hooks' | 'consoleSessions' | 'audit' | 'environments' | 'deployments' | 'drift' | 'approvals' | 'schedules' | 'policies'
>;

/**
 * Builds one table store on the (read-coalescing) document client. Each is its own export, so a Lambda function that
 * names only the stores its routes use bundles only those adapters (docs/deploy.md, "What each function bundles").
 */
export type TableStore = (documents: DynamoDBDocumentClient, table: string, now: () => number) => Partial<AwsTableStores>;

export const stackTable: TableStore = (documents, table) => ({ stacks: new DynamoDbStackStore(documents, table) });
export const updateTable: TableStore = (documents, table) => ({ updates: new DynamoDbUpdateStore(documents, table) });
export const leaseTable: TableStore = (documents, table, now) => ({ leases: new DynamoDbLeaseStore(documents, table, now) });
export const identityTable: TableStore = (documents, table, now) => ({ identity: new DynamoDbIdentityStore(documents, table, now) });
export const hookTable: TableStore = (documents, table) => ({ hooks: new DynamoDbHookStore(documents, table) });
export const consoleSessionTable: TableStore = (documents, table, now) => ({
  consoleSessions: new DynamoDbConsoleSessionStore(documents, table, now),
});
export const auditTable: TableStore = (documents, table) => ({ audit: new DynamoDbAuditStore(documents, table) });

export const environmentTable: TableStore = (documents, table, now) => ({
  environments: new DynamoDbEnvironmentStore(documents, table, now),
});

export const deploymentTable: TableStore = (documents, table) => ({ deployments: new DynamoDbDeploymentStore(documents, table) });

export const driftTable: TableStore = (documents, table) => ({ drift: new DynamoDbDriftStore(documents, table) });
export const approvalTable: TableStore = (documents, table) => ({ approvals: new DynamoDbApprovalStore(documents, table) });
export const policyTable: TableStore = (documents, table) => ({ policies: new DynamoDbPolicyStore(documents, table) });

export const scheduleTable: TableStore = (documents, table) => ({ schedules: new DynamoDbScheduleStore(documents, table) });

/** Every table store: `serve`, the CLI's AWS backend and the tests. */
export const ALL_TABLE_STORES: readonly TableStore[] = [
  stackTable,
  updateTable,
  leaseTable,
  identityTable,
  hookTable,
  consoleSessionTable,
  auditTable,
  environmentTable,
  deploymentTable,
  driftTable,
  approvalTable,
  scheduleTable,
  policyTable,
];
