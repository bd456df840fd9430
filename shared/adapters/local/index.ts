import { promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import { UnavailableError } from '../../core/errors.js';
import type {
  ApprovalStore,
  AuditStore,
  ConsoleSessionStore,
  DeploymentStore,
  DriftStore,
  EnvironmentStore,
  HookStore,
  PolicyPackageStore,
  PolicyStore,
  ScheduleStore,
  SourceArchiveStore,
  Storage,
} from '../../ports/index.js';
import { lazyStore } from '../lazy-store.js';
import { DataDir } from './files.js';
import { LocalCheckpointStore } from './local-checkpoint-store.js';
import { LocalIdentityStore } from './local-identity-store.js';
import { LocalKeyService } from './local-key-service.js';
import { LocalLeaseStore } from './local-lease-store.js';
import { LocalOutbox } from './local-outbox.js';
import { LocalStackStore } from './local-stack-store.js';
import { LocalUpdateStore } from './local-update-store.js';

export { hashToken } from './local-lease-store.js';
export { canonicalContext } from './local-key-service.js';

/** Version of the data folder layout (docs/storage-local.md); bumped on any incompatible change. */
export const LOCAL_LAYOUT_VERSION = 1;

export interface LocalStorageOptions {
  /** The one folder holding everything; created if missing. */
  dataDir: string;
  /** Clock for domain time (lease expiry), epoch milliseconds. */
  now?: () => number;
}

/** Embedded storage over one data folder, safe for several processes at once. */
export async function createLocalStorage(options: LocalStorageOptions): Promise<Storage> {
  const dir = new DataDir(resolve(options.dataDir));
  await fs.mkdir(dir.path('tmp'), { recursive: true, mode: 0o700 });
  await fs.mkdir(dir.path('locks'), { recursive: true, mode: 0o700 });
  const layoutPath = dir.path('layout.json');
  // Opening a folder that already has its layout writes nothing: a command that only reads (stack ls) pays no fsync.
  let layout = await dir.readJson<{ version?: unknown }>(layoutPath);
  if (layout === undefined) {
    const temp = await dir.writeTemp(JSON.stringify({ version: LOCAL_LAYOUT_VERSION }));
    await dir.publishExclusive(temp, layoutPath);
    layout = await dir.readJson<{ version?: unknown }>(layoutPath);
  }
  if (layout?.version !== LOCAL_LAYOUT_VERSION) {
    throw new UnavailableError(
      `The data folder ${dir.root} has layout version ${String(layout?.version)}; this Stackyard reads version ` +
        `${LOCAL_LAYOUT_VERSION}. Use a matching Stackyard version or a new data folder.`,
    );
  }
  const now = options.now ?? Date.now;
  const outbox = new LocalOutbox(dir);
  const policies = lazyStore<PolicyStore & PolicyPackageStore>(async () => new (await import('./local-policy-store.js')).LocalPolicyStore(dir));
  return {
    checkpoints: new LocalCheckpointStore(dir),
    stacks: new LocalStackStore(dir, outbox),
    updates: new LocalUpdateStore(dir, outbox),
    leases: new LocalLeaseStore(dir, now),
    keys: new LocalKeyService(dir),
    identity: new LocalIdentityStore(dir, now),
    // Loaded on first use: most commands never read a hook, a console session, the audit log, an environment, a
    // deployment, a drift run, a plan's approvals, a schedule or a policy pack, and start-up pays for every module
    // it compiles.
    hooks: lazyStore<HookStore>(async () => new (await import('./local-hook-store.js')).LocalHookStore(dir, outbox)),
    consoleSessions: lazyStore<ConsoleSessionStore>(async () => new (await import('./local-console-session-store.js')).LocalConsoleSessionStore(dir, now)),
    audit: lazyStore<AuditStore>(async () => new (await import('./local-audit-store.js')).LocalAuditStore(dir)),
    environments: lazyStore<EnvironmentStore>(async () => new (await import('./local-environment-store.js')).LocalEnvironmentStore(dir, now)),
    deployments: lazyStore<DeploymentStore>(async () => new (await import('./local-deployment-store.js')).LocalDeploymentStore(dir)),
    drift: lazyStore<DriftStore>(async () => new (await import('./local-drift-store.js')).LocalDriftStore(dir)),
    approvals: lazyStore<ApprovalStore>(async () => new (await import('./local-approval-store.js')).LocalApprovalStore(dir, outbox)),
    schedules: lazyStore<ScheduleStore>(async () => new (await import('./local-schedule-store.js')).LocalScheduleStore(dir)),
    policies,
    policyPackages: policies,
    sourceArchives: lazyStore<SourceArchiveStore>(async () => new (await import('./local-source-archive-store.js')).LocalSourceArchiveStore(dir)),
    close: async () => undefined,
  };
}
