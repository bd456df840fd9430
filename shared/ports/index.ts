export type * from './checkpoint-store.js';
export type * from './stack-store.js';
export type * from './update-store.js';
export type * from './lease-store.js';
export type * from './key-service.js';
export type * from './identity-store.js';
export type * from './hook-store.js';
export type * from './console-session-store.js';
export type * from './audit-store.js';
export type * from './environment-store.js';
export type * from './deployment-store.js';
export type * from './drift-store.js';
export type * from './approval-store.js';
export type * from './schedule-store.js';
export type * from './run-queue.js';
export type * from './schedule-triggers.js';
export type * from './policy-store.js';
export type * from './source-archive-store.js';
export { INFLATE_CHUNK_BYTES, MAX_OBJECT_BYTES } from './checkpoint-store.js';
export { ORG_ROLES, tokenOwnerKey } from './identity-store.js';
export { environmentObjectScope } from './environment-store.js';

import type { CheckpointStore } from './checkpoint-store.js';
import type { ConsoleSessionStore } from './console-session-store.js';
import type { ApprovalStore } from './approval-store.js';
import type { AuditStore } from './audit-store.js';
import type { DeploymentStore } from './deployment-store.js';
import type { DriftStore } from './drift-store.js';
import type { ScheduleStore } from './schedule-store.js';
import type { PolicyPackageStore, PolicyStore } from './policy-store.js';
import type { SourceArchiveStore } from './source-archive-store.js';
import type { EnvironmentStore } from './environment-store.js';
import type { HookStore } from './hook-store.js';
import type { IdentityStore } from './identity-store.js';
import type { KeyService } from './key-service.js';
import type { LeaseStore } from './lease-store.js';
import type { StackStore } from './stack-store.js';
import type { UpdateStore } from './update-store.js';

/** Everything the core needs from storage; built once per process by an adapter's factory. */
export interface Storage {
  checkpoints: CheckpointStore;
  stacks: StackStore;
  updates: UpdateStore;
  leases: LeaseStore;
  keys: KeyService;
  identity: IdentityStore;
  hooks: HookStore;
  consoleSessions: ConsoleSessionStore;
  /** The append-only audit log. */
  audit: AuditStore;
  /** Environments (ESC): records, revisions, revision tags, open sessions; definitions live in `checkpoints`. */
  environments: EnvironmentStore;
  /** Deployments: settings per stack, runs, the run queue and run logs. */
  deployments: DeploymentStore;
  /** Drift runs: what each preview of a refresh found changed behind Pulumi's back. */
  drift: DriftStore;
  /** Approvals: requirements per stack and organization, plans uploaded for approval. */
  approvals: ApprovalStore;
  /** Scheduled deployments: cron or one-time, raw, drift detection and TTL. */
  schedules: ScheduleStore;
  /** Policy pack versions and policy groups. */
  policies: PolicyStore;
  /** Policy pack tarballs. */
  policyPackages: PolicyPackageStore;
  /** Program archives uploaded as deployment runs' sources. */
  sourceArchives: SourceArchiveStore;
  /** Releases clients, timers and file handles. */
  close(): Promise<void>;
}
