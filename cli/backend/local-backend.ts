/**
 * Stacks in a local data folder: the shared services run in-process on `createLocalStorage`, as one fixed local
 * user who administers organization `organization` (the organization name Pulumi's local backend uses). Several
 * CLI processes may use one folder at once; the local adapter serializes their writes.
 */
import { ConflictError, type LeaseHolder } from '../../shared/core/errors.js';
import { UserError } from '../output/errors.js';
import type { StackRef } from '../../shared/core/names.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import type { ApprovalsBackend } from './approvals-backend.js';
import type { AccessBackend } from './access-backend.js';
import { localStateDiffBackend, type StateDiffBackend } from './state-diff-backend.js';
import type { EnvironmentsBackend } from './environments-backend.js';
import type { HooksBackend } from './hooks-backend.js';
import type { IdentityBackend } from './identity-backend.js';
import type { PolicyBackend } from './policy-backend.js';
import type { DeploymentsBackend } from './deployments-backend.js';
import type { DriftBackend } from './drift-backend.js';
import { localIssuerBackend, type IssuerBackend } from './issuer-backend.js';
import type { SchedulesBackend } from './schedules-backend.js';
import { drainHookOutbox } from './local-hook-drain.js';
import { localServices, type LocalServices } from './local-services.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';
import type { Storage } from '../../shared/ports/index.js';
import type { StackRecord } from '../../shared/ports/stack-store.js';
import type { UpdateRecord } from '../../shared/ports/update-store.js';
import type { JournalEntry } from '../../shared/core/journal/types.js';
import { updateInfo as serviceUpdateInfo } from '../../functions/http/wire.js';
import { lazySubBackend } from './lazy-sub-backend.js';
import type { Backend, CarriedHistoryInfo, StackDetails, StackSummary, StartedUpdate, StartOptions, UpdateInfo, UpdateRequest, WhoAmI } from './backend.js';
import type { CreatedUpdate } from './backend.js';

/** The user every local command runs as. */
export const LOCAL_USER = 'local';
/** The organization of local stacks, as in `pulumi login --local`. */
export const LOCAL_ORG = 'organization';

const PRINCIPAL: Principal = { login: LOCAL_USER, orgs: [LOCAL_ORG], admin: true, roles: { [LOCAL_ORG]: 'admin' } };

export class LocalBackend implements Backend {
  readonly kind = 'local';

  private constructor(
    readonly url: string,
    private readonly storage: Storage,
    private readonly services: LocalServices,
  ) {}

  /** Opens (creating if needed) the data folder and makes sure the local user and organization exist. */
  static async open(url: string, dataDir: string): Promise<LocalBackend> {
    const storage = await createLocalStorage({ dataDir });
    const backend = new LocalBackend(url, storage, localServices(serviceDeps(storage, { serviceUrl: url })));
    await backend.ensureIdentity();
    return backend;
  }

  /** Organization, membership, then user: the user record existing means the other two do as well. */
  private async ensureIdentity(): Promise<void> {
    const identity = this.storage.identity;
    const exists = await identity.getUser(LOCAL_USER).then(
      () => true,
      () => false,
    );
    if (exists) return;
    const createdAt = Date.now();
    await ignoreConflict(identity.createOrg({ name: LOCAL_ORG, createdAt }));
    await ignoreConflict(identity.createOrg({ name: LOCAL_USER, createdAt }));
    await ignoreConflict(identity.addMember({ org: LOCAL_ORG, login: LOCAL_USER, role: 'admin' }));
    await ignoreConflict(identity.createUser({ login: LOCAL_USER, name: LOCAL_USER, admin: true, createdAt }));
  }

  access(): AccessBackend {
    return lazySubBackend(async () => (await import('./access-local.js')).localAccessBackend(this.services, PRINCIPAL));
  }

  stateDiff(): StateDiffBackend {
    return localStateDiffBackend(this.services, PRINCIPAL);
  }

  environments(): EnvironmentsBackend {
    return lazySubBackend(async () => (await import('./environments-local.js')).localEnvironmentsBackend(this.services, PRINCIPAL));
  }

  approvals(): ApprovalsBackend {
    return lazySubBackend(async () => (await import('./approvals-local.js')).localApprovalsBackend());
  }

  identity(): IdentityBackend {
    return lazySubBackend(async () => (await import('./identity-local.js')).localIdentityBackend(this.services, PRINCIPAL));
  }

  hooks(): HooksBackend {
    return lazySubBackend(async () => (await import('./hooks-local.js')).localHooksBackend(this.services, PRINCIPAL));
  }

  deployments(): DeploymentsBackend {
    return lazySubBackend(async () => (await import('./deployments-local.js')).localDeploymentsBackend());
  }

  schedules(): SchedulesBackend {
    return lazySubBackend(async () => (await import('./schedules-local.js')).localSchedulesBackend());
  }

  drift(): DriftBackend {
    return lazySubBackend(async () => (await import('./drift-local.js')).localDriftBackend(this.services, PRINCIPAL));
  }

  issuer(): IssuerBackend {
    return localIssuerBackend(this.services, PRINCIPAL);
  }

  policies(): PolicyBackend {
    return lazySubBackend(async () => (await import('./policy-local.js')).localPolicyBackend());
  }

  async whoami(): Promise<WhoAmI> {
    return { user: LOCAL_USER, organizations: [LOCAL_ORG] };
  }

  async defaultOrg(): Promise<string> {
    return LOCAL_ORG;
  }

  async listStacks(filter: { org?: string; project?: string; tagName?: string; tagValue?: string }): Promise<StackSummary[]> {
    const stacks: StackSummary[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await (await this.services.stacks()).list(PRINCIPAL, { ...filter, continuationToken });
      stacks.push(...page.stacks.map(summary));
      continuationToken = page.continuationToken;
    } while (continuationToken !== undefined);
    return stacks;
  }

  async createStack(ref: StackRef, tags: Record<string, string>, teams?: string[], configEnvironment?: string): Promise<void> {
    // As Pulumi's DIY backend (backend.ErrConfigNotSupported): only a service keeps a stack's configuration.
    if (configEnvironment !== undefined) {
      throw new UserError('could not create stack: remote config is not supported', 'Log in to a Stackyard service (`stackyard login <url>`) to keep a stack\'s configuration in an ESC environment.');
    }
    await (await this.services.stacks()).create(PRINCIPAL, ref, { tags, ...(teams?.length ? { teams } : {}) });
    await drainHookOutbox(this.storage);
  }

  async getStack(ref: StackRef): Promise<StackDetails> {
    const stack = await (await this.services.stacks()).get(PRINCIPAL, ref);
    return {
      ref: { org: stack.org, project: stack.project, stack: stack.stack },
      tags: stack.tags,
      activeUpdate: stack.activeUpdate,
      version: stack.version,
      ...(stack.configEnvironment !== undefined ? { configEnvironment: stack.configEnvironment } : {}),
    };
  }

  async removeStack(ref: StackRef, force: boolean): Promise<void> {
    await (await this.services.stacks()).remove(PRINCIPAL, ref, force);
    await drainHookOutbox(this.storage);
  }

  async renameStack(ref: StackRef, to: { project: string; stack: string }): Promise<void> {
    await (await this.services.stacks()).rename(PRINCIPAL, ref, to);
    await drainHookOutbox(this.storage);
  }

  async setTags(ref: StackRef, tags: Record<string, string>): Promise<void> {
    await (await this.services.stacks()).setTags(PRINCIPAL, ref, tags);
  }

  async liveLease(ref: StackRef): Promise<LeaseHolder | undefined> {
    const stack = await (await this.services.stacks()).get(PRINCIPAL, ref);
    if (!stack.activeUpdate) return undefined;
    const lease = await this.storage.leases.current(stack.id);
    return lease?.updateId === stack.activeUpdate && lease.expiresAt > Date.now() ? lease : undefined;
  }

  async exportDeployment(ref: StackRef, version?: number): Promise<UntypedDeployment> {
    return (await this.services.stacks()).exportDeployment(PRINCIPAL, ref, version);
  }

  async importDeployment(ref: StackRef, deployment: UntypedDeployment): Promise<void> {
    await (await this.services.stacks()).importDeployment(PRINCIPAL, ref, deployment);
    await drainHookOutbox(this.storage);
  }

  async history(ref: StackRef, page: number, pageSize: number): Promise<UpdateInfo[]> {
    return (await (await this.services.stacks()).history(PRINCIPAL, ref, page, pageSize)).map(updateInfo);
  }

  async rollback(ref: StackRef, version: number): Promise<{ version: number }> {
    const { version: restored } = await (await this.services.restore()).rollback(PRINCIPAL, ref, version);
    return { version: restored };
  }

  async appendHistory(ref: StackRef, entry: CarriedHistoryInfo): Promise<void> {
    await (await this.services.restore()).appendHistory(PRINCIPAL, ref, {
      version: entry.version,
      kind: entry.kind as UpdateRecord['kind'],
      result: entry.result,
      startedAt: entry.startTime * 1000,
      endedAt: entry.endTime * 1000,
      ...(entry.message ? { message: entry.message } : {}),
      environment: entry.environment,
      config: entry.config,
      ...(entry.resourceChanges ? { resourceChanges: entry.resourceChanges } : {}),
      ...(entry.deployment ? { deployment: entry.deployment } : {}),
    });
  }

  async cancelUpdate(ref: StackRef, updateId: string): Promise<void> {
    await (await this.services.updates()).cancel(PRINCIPAL, ref, updateId);
    await drainHookOutbox(this.storage);
  }

  async encrypt(ref: StackRef, plaintexts: string[]): Promise<string[]> {
    const ciphertexts = await (await this.services.secrets()).encrypt(PRINCIPAL, ref, plaintexts.map((p) => Buffer.from(p, 'utf8')));
    return ciphertexts.map((c) => Buffer.from(c).toString('base64'));
  }

  async decrypt(ref: StackRef, ciphertexts: string[]): Promise<string[]> {
    const plaintexts = await (await this.services.secrets()).decrypt(PRINCIPAL, ref, ciphertexts.map((c) => Buffer.from(c, 'base64')));
    return plaintexts.map((p) => Buffer.from(p).toString('utf8'));
  }

  async createUpdate(ref: StackRef, request: UpdateRequest): Promise<CreatedUpdate> {
    const { updateId } = await (await this.services.updates()).create(PRINCIPAL, ref, {
      // Pulumi's DIY backend records an import as a `resource-import`
      kind: request.kind === 'import' ? 'resource-import' : request.kind,
      dryRun: request.dryRun,
      message: request.message,
      environment: request.environment,
      config: request.config,
    });
    return { updateId, requiredPolicies: [] };
  }

  async startUpdate(ref: StackRef, updateId: string, tags: Record<string, string>, options: StartOptions = {}): Promise<StartedUpdate> {
    const leaseDurationMs = options.leaseDurationSeconds === undefined ? undefined : options.leaseDurationSeconds * 1000;
    const started = await (await this.services.updates()).start(PRINCIPAL, ref, updateId, { tags, leaseDurationMs, journalVersion: options.journalVersion });
    return { version: started.version, token: started.token, journalVersion: started.journalVersion };
  }

  async renewLease(ref: StackRef, updateId: string, token: string, durationSeconds: number): Promise<string> {
    return (await (await this.services.updates()).renew(ref, updateId, token, durationSeconds * 1000)).token;
  }

  async saveCheckpoint(ref: StackRef, updateId: string, token: string, deployment: UntypedDeployment): Promise<void> {
    return (await this.services.updates()).saveCheckpoint(ref, updateId, token, deployment);
  }

  async appendJournalEntries(ref: StackRef, updateId: string, token: string, entries: JournalEntry[]): Promise<void> {
    return (await this.services.updates()).saveJournalEntries(ref, updateId, token, Buffer.from(JSON.stringify({ entries })));
  }

  async recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void> {
    return (await this.services.updates()).recordEvents(ref, updateId, token, events);
  }

  async completeUpdate(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
    await (await this.services.updates()).complete(ref, updateId, token, status);
    // The update's events (started, and how it ended) are delivered now: no dispatcher runs for a local folder.
    await drainHookOutbox(this.storage);
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}

async function ignoreConflict(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
}

function summary(stack: StackRecord): StackSummary {
  return {
    ref: { org: stack.org, project: stack.project, stack: stack.stack },
    lastUpdate: stack.lastUpdate,
    updateInProgress: stack.activeUpdate !== undefined,
    resourceCount: stack.resourceCount,
  };
}

/** The history entry the service answers for `update` (one mapping for both backends), with a version always set. */
function updateInfo(update: UpdateRecord): UpdateInfo {
  return { version: 0, ...serviceUpdateInfo(update) };
}
