import { randomBytes } from 'node:crypto';
import type { AuditEntry, AuditPage } from '../../ports/audit-store.js';
import { ForbiddenError, InvalidInputError } from '../errors.js';
import { requireOrgAction } from '../service/authorization.js';
import type { ServiceDeps } from '../service/create-services.js';
import type { Principal, RequestInfo } from '../service/types.js';

/** What an audited action is: which organization's log, the event name, what it acts on, and a secret-free text. */
export interface AuditSpec {
  org: string;
  event: AuditEvent;
  target?: string;
  description: string;
}

/** Every event the log records (docs/security.md describes each). */
export type AuditEvent =
  | 'auth.failed'
  | 'user.created'
  | 'org.created'
  | 'org.settings-changed'
  | 'member.added'
  | 'member.role-changed'
  | 'member.removed'
  | 'team.created'
  | 'team.deleted'
  | 'team.member-added'
  | 'team.member-removed'
  | 'token.created'
  | 'token.revoked'
  | 'stack.created'
  | 'stack.deleted'
  | 'stack.renamed'
  | 'stack.tags-changed'
  | 'stack.imported'
  | 'stack.rolled-back'
  | 'stack.history-added'
  | 'stack.permission-changed'
  | 'update.started'
  | 'update.cancelled'
  | 'secret.decrypted'
  | 'secret.decryption-reported'
  | 'hook.created'
  | 'hook.deleted'
  | 'oidc.policy-created'
  | 'oidc.policy-deleted'
  | 'oidc.token-issued';

function newEntryId(time: number): string {
  return `${String(time).padStart(13, '0')}-${randomBytes(8).toString('hex')}`;
}

function entryFor(deps: ServiceDeps, principal: Principal | undefined, spec: AuditSpec, request: RequestInfo | undefined): AuditEntry {
  const time = deps.now();
  return {
    id: newEntryId(time),
    org: spec.org,
    time,
    event: spec.event,
    actor: principal?.login ?? 'anonymous',
    ...(principal?.token ? { tokenId: principal.token.id } : {}),
    ...(request?.id ? { requestId: request.id } : {}),
    ...(request?.sourceIp ? { sourceIp: request.sourceIp } : {}),
    ...(request?.userAgent ? { userAgent: request.userAgent.slice(0, 300) } : {}),
    ...(spec.target !== undefined ? { target: spec.target } : {}),
    description: spec.description,
  };
}

/**
 * Runs an audited action write-ahead: the entry is appended first, so no action can exist without its entry even
 * when the process dies right after it; if the action then fails, a second entry (`outcome: failed`) says so. The
 * log is never updated. A failure to append refuses the action.
 */
export async function audited<T>(deps: ServiceDeps, principal: Principal, spec: AuditSpec, action: () => Promise<T>): Promise<T> {
  const entry = entryFor(deps, principal, spec, principal.request);
  await deps.storage.audit.append(entry);
  try {
    return await action();
  } catch (error) {
    await deps.storage.audit
      .append({ ...entryFor(deps, principal, spec, principal.request), outcome: 'failed' })
      .catch(() => undefined);
    throw error;
  }
}

/**
 * An authentication failure: in the organization of a known (expired) token's owner, or the site log for tokens
 * nobody holds. Never stores the token, only its public id when known.
 */
export async function auditAuthenticationFailure(
  deps: ServiceDeps,
  request: RequestInfo | undefined,
  reason: string,
  known?: { org: string; actor: string; tokenId?: string },
): Promise<void> {
  const entry = entryFor(deps, undefined, { org: known?.org ?? '', event: 'auth.failed', description: reason }, request);
  await deps.storage.audit.append(known ? { ...entry, actor: known.actor, ...(known.tokenId ? { tokenId: known.tokenId } : {}) } : entry);
}

export interface AuditListQuery {
  since?: number;
  before?: number;
  actor?: string;
  event?: string;
  limit?: number;
  continuationToken?: string;
}

/** Organization admins read their organization's log; site administrators read the site log (`org: ''`). */
export async function listAudit(deps: ServiceDeps, principal: Principal, org: string, query: AuditListQuery): Promise<AuditPage> {
  if (org === '') {
    if (!principal.admin || principal.token?.org) {
      throw new ForbiddenError('Only site administrators read the site log (authentication failures of unknown tokens): give an organization instead.');
    }
  } else {
    requireOrgAction(principal, org, 'read-audit-log');
  }
  for (const [name, value] of [['since', query.since], ['before', query.before]] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new InvalidInputError(`Invalid ${name}: give a time.`);
  }
  return deps.storage.audit.list({ org, ...query });
}

/** The audit log as the API and the CLI read it. */
export interface AuditService {
  list(principal: Principal, org: string, query: AuditListQuery): Promise<AuditPage>;
}

export function createAuditService(deps: ServiceDeps): AuditService {
  return { list: (principal, org, query) => listAudit(deps, principal, org, query) };
}
