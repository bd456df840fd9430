/**
 * Stacks on a Stackyard service, over the Pulumi service API (pulumi-service-api.md §3) and our admin routes, with
 * the same request shapes, gzip choices and lease-token authentication the Pulumi CLI uses.
 *
 * Sub-backends (access, identity, hooks, environments, state diff) and the lease-conflict reading live in modules
 * of their own beside this one; a new group of routes starts in one too.
 * The update lifecycle calls (create through complete, and the secret batches) are in http-update-calls.ts.
 */
import type { LeaseHolder } from '../../shared/core/errors.js';
import type { StackRef } from '../../shared/core/names.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';
import { ApiClient } from '../api-client/api-client.js';
import type { ApprovalsBackend } from './approvals-backend.js';
import type { AccessBackend } from './access-backend.js';
import { httpStateDiffBackend, type StateDiffBackend } from './state-diff-backend.js';
import { ApiError } from '../api-client/api-error.js';
import { liveLease } from './lease-conflict.js';
import { HttpUpdateCalls, stackPath, type UpdateCalls } from './http-update-calls.js';
import type { EnvironmentsBackend } from './environments-backend.js';
import { httpEnvironmentsBackend } from './environments-http.js';
import type { HooksBackend } from './hooks-backend.js';
import type { IdentityBackend } from './identity-backend.js';
import type { PolicyBackend } from './policy-backend.js';
import type { DeploymentsBackend } from './deployments-backend.js';
import type { DriftBackend } from './drift-backend.js';
import { httpIssuerBackend, type IssuerBackend } from './issuer-backend.js';
import type { SchedulesBackend } from './schedules-backend.js';
import { lazySubBackend } from './lazy-sub-backend.js';
import type { Backend, CarriedHistoryInfo, StackDetails, StackSummary, UpdateInfo, WhoAmI } from './backend.js';

interface ServiceUser {
  githubLogin: string;
  organizations?: { githubLogin: string }[];
}

interface WireStack {
  orgName: string;
  projectName: string;
  stackName: string;
  activeUpdate?: string;
  tags?: Record<string, string>;
  version?: number;
  config?: { environment?: string } | null;
}

interface WireStackSummary {
  orgName: string;
  projectName: string;
  stackName: string;
  lastUpdate?: number;
  resourceCount?: number;
}

/** Imports are applied synchronously by Stackyard; a slower server gets this many status polls. */
const MAX_IMPORT_POLLS = 600;

export class HttpBackend implements Backend {
  readonly kind = 'service';
  readonly url: string;
  private user?: Promise<ServiceUser>;
  private readonly calls: HttpUpdateCalls;
  private org?: Promise<string>;

  access(): AccessBackend {
    return lazySubBackend(async () => (await import('./access-http.js')).httpAccessBackend(this.client));
  }

  stateDiff(): StateDiffBackend {
    return httpStateDiffBackend(this.client);
  }

  environments(): EnvironmentsBackend {
    return httpEnvironmentsBackend(this.client);
  }

  approvals(): ApprovalsBackend {
    return lazySubBackend(async () => (await import('./approvals-http.js')).httpApprovalsBackend(this.client));
  }

  identity(): IdentityBackend {
    return lazySubBackend(async () => (await import('./identity-http.js')).httpIdentityBackend(this.client));
  }

  hooks(): HooksBackend {
    return lazySubBackend(async () => (await import('./hooks-http.js')).httpHooksBackend(this.client));
  }

  deployments(): DeploymentsBackend {
    return lazySubBackend(async () => (await import('./deployments-http.js')).httpDeploymentsBackend(this.client));
  }

  schedules(): SchedulesBackend {
    return lazySubBackend(async () => (await import('./schedules-http.js')).httpSchedulesBackend(this.client));
  }

  drift(): DriftBackend {
    return lazySubBackend(async () => (await import('./drift-http.js')).httpDriftBackend(this.client));
  }

  issuer(): IssuerBackend {
    return httpIssuerBackend(this.client);
  }

  policies(): PolicyBackend {
    return lazySubBackend(async () => (await import('./policy-http.js')).httpPolicyBackend(this.client));
  }

  /** `configuredOrg`: the default organization set for this backend (`org set-default`), which the service is not asked for. */
  constructor(
    private readonly client: ApiClient,
    configuredOrg?: string,
  ) {
    this.url = client.baseUrl;
    this.calls = new HttpUpdateCalls(client, (ref) => this.activeUpdate(ref));
    if (configuredOrg) this.org = Promise.resolve(configuredOrg);
  }

  private currentUser(): Promise<ServiceUser> {
    this.user ??= this.client.request<ServiceUser>({ method: 'GET', path: '/api/user', operation: 'get user' });
    return this.user;
  }

  async whoami(): Promise<WhoAmI> {
    const user = await this.currentUser();
    return { user: user.githubLogin, organizations: (user.organizations ?? []).map((o) => o.githubLogin) };
  }

  /**
   * The organization set with `org set-default`, else the service's default organization (asked once per command); a
   * 404 means the user's own login, as in the Pulumi CLI.
   */
  defaultOrg(): Promise<string> {
    this.org ??= this.fetchDefaultOrg();
    return this.org;
  }

  private async fetchDefaultOrg(): Promise<string> {
    try {
      const answer = await this.client.request<Record<string, unknown> | undefined>({
        method: 'GET',
        path: '/api/user/organizations/default',
        operation: 'get default organization',
      });
      const org = caseInsensitiveField(answer, 'GitHubLogin');
      if (org) return org;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    return (await this.currentUser()).githubLogin;
  }

  async listStacks(filter: { org?: string; project?: string; tagName?: string; tagValue?: string }): Promise<StackSummary[]> {
    const stacks: StackSummary[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.client.request<{ stacks?: WireStackSummary[]; continuationToken?: string | null }>({
        method: 'GET',
        path: '/api/user/stacks',
        query: { project: filter.project, organization: filter.org, tagName: filter.tagName, tagValue: filter.tagValue, continuationToken },
        operation: 'list stacks',
      });
      for (const s of page?.stacks ?? []) {
        // Pulumi's `*int64`/`*int`: absent or null is unknown (shown as n/a), never 0 or "null".
        const lastUpdate = finiteNumber(s.lastUpdate);
        const resourceCount = finiteNumber(s.resourceCount);
        stacks.push({
          ref: { org: s.orgName, project: s.projectName, stack: s.stackName },
          lastUpdate: lastUpdate === undefined || lastUpdate === 0 ? undefined : lastUpdate * 1000,
          updateInProgress: lastUpdate === 0,
          ...(resourceCount !== undefined ? { resourceCount } : {}),
        });
      }
      continuationToken = page?.continuationToken ?? undefined;
    } while (continuationToken);
    return stacks;
  }

  async createStack(ref: StackRef, tags: Record<string, string>, teams?: string[], configEnvironment?: string): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: `/api/stacks/${ref.org}/${ref.project}`,
      // `config` as Pulumi's CreateStackRequest carries it (apitype.StackConfig).
      body: { stackName: ref.stack, tags, ...(teams?.length ? { teams } : {}), ...(configEnvironment !== undefined ? { config: { environment: configEnvironment } } : {}) },
      operation: 'create stack',
    });
  }

  async getStack(ref: StackRef): Promise<StackDetails> {
    const stack = await this.client.request<WireStack>({ method: 'GET', path: stackPath(ref), operation: 'get stack' });
    return {
      ref: { org: stack.orgName, project: stack.projectName, stack: stack.stackName },
      tags: stack.tags ?? {},
      activeUpdate: stack.activeUpdate || undefined,
      version: stack.version ?? 0,
      ...(stack.config?.environment ? { configEnvironment: stack.config.environment } : {}),
    };
  }

  liveLease(ref: StackRef): Promise<LeaseHolder | undefined> {
    return liveLease(this.client, ref, this.activeUpdate);
  }

  /** For lease conflicts the service describes without their holder. */
  private readonly activeUpdate = async (ref: StackRef) => (await this.getStack(ref)).activeUpdate;

  async removeStack(ref: StackRef, force: boolean): Promise<void> {
    await this.client.request({ method: 'DELETE', path: stackPath(ref), query: { force }, operation: 'remove stack' });
  }

  async renameStack(ref: StackRef, to: { project: string; stack: string }): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: `${stackPath(ref)}/rename`,
      body: { newName: to.stack, newProject: to.project },
      operation: 'rename stack',
    });
  }

  async setTags(ref: StackRef, tags: Record<string, string>): Promise<void> {
    await this.client.request({ method: 'PATCH', path: `${stackPath(ref)}/tags`, body: tags, operation: 'set tags' });
  }

  exportDeployment(ref: StackRef, version?: number): Promise<UntypedDeployment> {
    return this.client.request<UntypedDeployment>({
      method: 'GET',
      path: `${stackPath(ref)}/export${version === undefined ? '' : `/${version}`}`,
      operation: 'export stack',
    });
  }

  async importDeployment(ref: StackRef, deployment: UntypedDeployment): Promise<void> {
    const { updateId } = await this.client.request<{ updateId: string }>({
      method: 'POST',
      path: `${stackPath(ref)}/import`,
      body: deployment,
      gzip: true,
      operation: 'import stack',
    });
    for (let poll = 0; poll < MAX_IMPORT_POLLS; poll++) {
      const status = await this.client.request<{ status: string; continuationToken?: string | null }>({
        method: 'GET',
        path: `${stackPath(ref)}/update/${updateId}`,
        operation: 'import stack',
      });
      if (!status.continuationToken) {
        if (status.status !== 'succeeded') throw new ApiError(500, `import unsuccessful: status ${status.status}`, undefined, 'import stack');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new ApiError(504, `the import did not finish; check it later with 'stackyard stack history'`, undefined, 'import stack');
  }

  async history(ref: StackRef, page: number, pageSize: number): Promise<UpdateInfo[]> {
    const answer = await this.client.request<{ updates?: UpdateInfo[] }>({
      method: 'GET',
      path: `${stackPath(ref)}/updates`,
      query: { pageSize, page },
      operation: 'get history',
    });
    return answer?.updates ?? [];
  }

  /** A one-time code (60 s) that signs the browser into the web console and opens `path` (`stackyard console`). */
  async consoleLoginCode(path: string): Promise<{ code: string; expiresAt: number }> {
    return this.client.request({ method: 'POST', path: '/api/console/login-codes', body: { path }, operation: 'create console login code' });
  }

  async rollback(ref: StackRef, version: number): Promise<{ version: number }> {
    const answer = await this.client.request<{ version: number }>({
      method: 'POST',
      path: `${stackPath(ref)}/rollback`,
      body: { version },
      operation: 'roll back stack',
    });
    return { version: answer.version };
  }

  async appendHistory(ref: StackRef, entry: CarriedHistoryInfo): Promise<void> {
    await this.client.request({ method: 'POST', path: `${stackPath(ref)}/history`, body: entry, gzip: true, operation: 'add history' });
  }

  readonly cancelUpdate: UpdateCalls['cancelUpdate'] = (...args) => this.calls.cancelUpdate(...args);
  readonly encrypt: UpdateCalls['encrypt'] = (...args) => this.calls.encrypt(...args);
  readonly decrypt: UpdateCalls['decrypt'] = (...args) => this.calls.decrypt(...args);
  readonly createUpdate: UpdateCalls['createUpdate'] = (...args) => this.calls.createUpdate(...args);
  readonly startUpdate: UpdateCalls['startUpdate'] = (...args) => this.calls.startUpdate(...args);
  readonly renewLease: UpdateCalls['renewLease'] = (...args) => this.calls.renewLease(...args);
  readonly saveCheckpoint: UpdateCalls['saveCheckpoint'] = (...args) => this.calls.saveCheckpoint(...args);
  readonly appendJournalEntries: UpdateCalls['appendJournalEntries'] = (...args) => this.calls.appendJournalEntries(...args);
  readonly recordEvents: UpdateCalls['recordEvents'] = (...args) => this.calls.recordEvents(...args);
  readonly completeUpdate: UpdateCalls['completeUpdate'] = (...args) => this.calls.completeUpdate(...args);

  async close(): Promise<void> {}
}

/**
 * A string field read the way Go's encoding/json (and so the Pulumi CLI) reads one: the key matches whatever its
 * case (`GitHubLogin`, `gitHubLogin`, `githubLogin`, …), and when several keys match the last one wins.
 */
export function caseInsensitiveField(object: unknown, name: string): string | undefined {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  let found: string | undefined;
  for (const [key, value] of Object.entries(object)) {
    if (key.toLowerCase() === name.toLowerCase() && typeof value === 'string') found = value;
  }
  return found;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
