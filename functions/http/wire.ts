import type { PrincipalToken } from '../../shared/core/kernel/principal.js';
import type { UpdateStatusView } from '../../shared/core/updates/types.js';
import type { StackRecord } from '../../shared/ports/stack-store.js';
import type { UpdateRecord, UpdateStatus } from '../../shared/ports/update-store.js';
import type { TokenRecord, UserRecord } from '../../shared/ports/identity-store.js';

/** Stored records in the shapes the Pulumi CLI decodes (pulumi-service-api.md §1.5, §3, §6). */

const seconds = (ms: number) => Math.floor(ms / 1000);

/** `GET /api/user`: `githubLogin` and every organization's `githubLogin` must be non-empty. */
export function serviceUser(user: UserRecord & { orgs: string[] }) {
  return {
    id: user.login,
    githubLogin: user.login,
    name: user.name || user.login,
    email: user.email ?? '',
    avatarUrl: '',
    // The personal organization is the user itself, which the Pulumi service does not list as an organization.
    organizations: user.orgs
      .filter((org) => org !== user.login)
      .map((org) => ({ githubLogin: org, name: org, avatarUrl: '', email: '' })),
    identities: [],
    siteAdmin: user.admin,
  };
}

/**
 * `GET /api/stacks/{o}/{p}/{s}`. `config` (apitype.StackConfig) only for a remote-config stack: a non-null one
 * switches the CLI to reading the configuration from that ESC environment instead of `Pulumi.<stack>.yaml`.
 * `currentOperation` describes the running update, when there is one.
 */
export function stackView(stack: StackRecord, running?: UpdateStatusView) {
  return {
    id: stack.id,
    orgName: stack.org,
    projectName: stack.project,
    stackName: stack.stack,
    activeUpdate: stack.activeUpdate ?? '',
    ...(running
      ? { currentOperation: { kind: running.kind, author: running.requestedBy, started: seconds(running.startedAt ?? Date.now()) } }
      : {}),
    tags: stack.tags,
    ...(stack.configEnvironment !== undefined ? { config: { environment: stack.configEnvironment } } : {}),
    version: stack.version,
  };
}

/** One `GET /api/user/stacks` entry; `lastUpdate: 0` is how the CLI shows "in progress". */
export function stackSummary(stack: StackRecord) {
  return {
    id: stack.id,
    orgName: stack.org,
    projectName: stack.project,
    stackName: stack.stack,
    ...(stack.activeUpdate ? { lastUpdate: 0 } : stack.lastUpdate !== undefined ? { lastUpdate: seconds(stack.lastUpdate) } : {}),
    ...(stack.resourceCount !== undefined ? { resourceCount: stack.resourceCount } : {}),
  };
}

/** History reports a cancelled update as `failed`: the Pulumi CLI knows no `cancelled` result. */
export function updateResult(status: UpdateStatus): 'not-started' | 'in-progress' | 'succeeded' | 'failed' {
  return status === 'cancelled' ? 'failed' : status;
}

/** `UpdateInfo` of `GET …/updates` and `…/updates/latest`. */
export function updateInfo(update: UpdateRecord) {
  return {
    updateID: update.id,
    kind: update.kind,
    startTime: seconds(update.startedAt ?? update.createdAt),
    message: update.message ?? '',
    environment: update.environment,
    config: update.config,
    result: updateResult(update.status),
    ...(update.endedAt !== undefined ? { endTime: seconds(update.endedAt) } : {}),
    ...(update.version !== undefined ? { version: update.version } : {}),
    resourceChanges: update.resourceChanges ?? {},
    ...(update.resourceCount !== undefined ? { resourceCount: update.resourceCount } : {}),
    requestedBy: update.requestedBy,
    // Beyond Pulumi's UpdateInfo (clients ignore unknown fields): the console shows who cancelled an update, and
    // that a failed one was abandoned (its lease expired) or refused by the policy check, rather than ended by its client.
    ...(update.cancelledBy !== undefined ? { cancelledBy: update.cancelledBy } : {}),
    ...(update.endReason !== undefined ? { endReason: update.endReason } : {}),
    ...(update.endMessage !== undefined ? { endMessage: update.endMessage } : {}),
  };
}

/** `GET …/update/{id}` (`UpdateResults`): the CLI polls imports until `continuationToken` is absent. */
export function updateResults(status: UpdateStatus) {
  const wire = {
    'not-started': 'not started',
    'in-progress': 'running',
    succeeded: 'succeeded',
    failed: 'failed',
    cancelled: 'failed',
  }[status];
  const done = status === 'succeeded' || status === 'failed' || status === 'cancelled';
  return done ? { status: wire, events: [] } : { status: wire, events: [], continuationToken: 'poll' };
}

export function tokenView(token: TokenRecord) {
  return {
    id: token.id,
    description: token.description,
    login: token.login,
    kind: token.kind ?? 'personal',
    ...(token.org !== undefined ? { organization: token.org } : {}),
    ...(token.team !== undefined ? { team: token.team } : {}),
    ...(token.createdBy !== undefined ? { createdBy: token.createdBy } : {}),
    createdAt: seconds(token.createdAt),
    ...(token.expiresAt !== undefined ? { expiresAt: seconds(token.expiresAt) } : {}),
    ...(token.lastUsedAt !== undefined ? { lastUsed: seconds(token.lastUsedAt) } : {}),
  };
}

/** `tokenInfo` of `GET /api/user`, which `pulumi whoami -v` prints for team and organization tokens. */
export function tokenInfo(token: PrincipalToken | undefined) {
  if (!token || token.kind === 'personal') return {};
  return { tokenInfo: { name: token.description || token.id, organization: token.org ?? '', team: token.team ?? '' } };
}
