import { createHash, randomBytes } from 'node:crypto';
import type { AuditEntry, AuditPage } from '../../ports/audit-store.js';
import { DomainError, InvalidInputError, PermissionDeniedError, UnavailableError } from '../errors.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';

/**
 * What an audited action is: which organization's log, the event name, what it acts on (and for an environment, which
 * revision), and a secret-free text.
 */
export interface AuditSpec {
  org: string;
  event: AuditEvent;
  target?: string;
  revision?: number;
  description: string;
}

/** Every event the log records (docs/security.md describes each). */
export type AuditEvent =
  | 'auth.failed'
  | 'authz.denied'
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
  | 'stack.config-changed'
  | 'stack.imported'
  | 'stack.rolled-back'
  | 'stack.history-added'
  | 'stack.permission-changed'
  | 'update.started'
  | 'update.completed'
  | 'update.cancelled'
  | 'secret.decrypted'
  | 'secret.decryption-reported'
  | 'hook.created'
  | 'hook.deleted'
  | 'hook.pinged'
  | 'hook.redelivered'
  | 'console.signed-in'
  | 'console.signed-out'
  | 'oidc.policy-created'
  | 'oidc.policy-deleted'
  | 'oidc.token-issued'
  | 'oidc.issuer-key-rotated'
  | 'environment.created'
  | 'environment.updated'
  | 'environment.deleted'
  | 'environment.cloned'
  | 'environment.opened'
  | 'environment.secrets-revealed'
  | 'environment.tag-changed'
  | 'environment.permission-changed'
  | 'deployment.settings-changed'
  | 'deployment.settings-deleted'
  | 'deployment.queued'
  | 'deployment.cancelled'
  | 'approvals.changed'
  | 'approvals.rule-changed'
  | 'plan.uploaded'
  | 'plan.approved'
  | 'plan.rejected'
  | 'plan.refused'
  | 'deployment.schedule-created'
  | 'deployment.schedule-changed'
  | 'deployment.schedule-deleted'
  | 'policy.pack-published'
  | 'policy.pack-deleted'
  | 'policy.group-created'
  | 'policy.group-changed'
  | 'policy.group-deleted'
  | 'policy.bypassed';

/** Events that record a refusal itself: the only entries a refused request leaves (all else changes nothing). */
export const REFUSAL_EVENTS: readonly string[] = ['auth.failed', 'authz.denied', 'plan.refused'];

function newEntryId(time: number): string {
  return `${String(time).padStart(13, '0')}-${randomBytes(8).toString('hex')}`;
}

/** Who an entry names when the caller is no principal: an update's requester acting through its lease token. */
export interface AuditActor {
  login: string;
  tokenId?: string;
  request?: RequestInfo;
}

function actorOf(principal: Principal | AuditActor): AuditActor {
  if (!('orgs' in principal)) return principal;
  return {
    login: principal.login,
    ...(principal.token ? { tokenId: principal.token.id } : {}),
    ...(principal.request ? { request: principal.request } : {}),
  };
}

function entryFor(deps: ServiceDeps, actor: AuditActor | undefined, spec: AuditSpec): AuditEntry {
  const time = deps.now();
  const request = actor?.request;
  return {
    id: newEntryId(time),
    org: spec.org,
    time,
    event: spec.event,
    actor: actor?.login ?? 'anonymous',
    ...(actor?.tokenId ? { tokenId: actor.tokenId } : {}),
    ...(request?.id ? { requestId: request.id } : {}),
    ...(request?.sourceIp ? { sourceIp: request.sourceIp } : {}),
    ...(request?.userAgent ? { userAgent: request.userAgent.slice(0, 300) } : {}),
    ...(spec.target !== undefined ? { target: spec.target } : {}),
    ...(spec.revision !== undefined ? { revision: spec.revision } : {}),
    description: spec.description,
  };
}

/**
 * How long a request may hold an audit intent before it is taken to be dead and its entry published with
 * `outcome: 'unknown'`. Far longer than any request may run (Lambda functions stop at 28 s; serve has no longer
 * audited call), so a live request is never overtaken.
 */
export const AUDIT_INTENT_GRACE_MS = 5 * 60_000;

/**
 * Runs an audited action through the audit outbox (AuditStore): its intent is stored first, so no action can happen
 * without it (a failure to store it refuses the action); when the action completes, the entry is published and the
 * intent removed in one commit. A refusal (any domain error but an outage) discards the intent, so rejected input
 * leaves the log unchanged too. Any other failure may have applied the change: its entry is published with
 * `outcome: 'unknown'`. A request that dies midway leaves the intent, which `recover` publishes (`listAudit` runs it).
 * Exactly one entry per completed action; the log itself is never updated.
 */
export async function audited<T>(deps: ServiceDeps, principal: Principal | AuditActor, spec: AuditSpec, action: () => Promise<T>): Promise<T> {
  const entry = entryFor(deps, actorOf(principal), spec);
  const audit = deps.storage.audit;
  await audit.begin({ entry, deadline: entry.time + (deps.options.auditGraceMs ?? AUDIT_INTENT_GRACE_MS) });
  let result: T;
  try {
    result = await action();
  } catch (error) {
    // If this bookkeeping fails too, the intent stays and recovery publishes it: never an action without an entry.
    const settled = isRefusal(error) ? audit.discard(entry) : audit.commit({ ...entry, outcome: 'unknown' });
    await settled.catch(() => undefined);
    throw error;
  }
  // The action happened: a failed commit leaves the intent for recovery rather than report a done action as failed.
  await audit.commit(entry).catch(() => undefined);
  return result;
}

/** A domain error other than an outage: the action was refused before it changed anything (no partial writes). */
function isRefusal(error: unknown): boolean {
  return error instanceof DomainError && !(error instanceof UnavailableError);
}

/** Refusals of one source, route and minute share one tally (docs/security.md, "Refusal tallies"). */
export const REFUSAL_TALLY_MS = 60_000;

/**
 * The id of the tally a refusal counts into: its window's start (so tallies sort by time like entries), then a hash
 * of what the tally is per — organization, event, source address, route, window, and the token's public id when the
 * refused token is a stored one (expired, or of a deleted account). Nothing else the caller sends (token, user agent, subject claims) picks the tally, so a
 * flood from one address at one route writes one tally a minute however it varies the rest.
 */
function refusalTallyId(entry: AuditEntry, storedTokenId: string | undefined): string {
  const window = Math.floor(entry.time / REFUSAL_TALLY_MS) * REFUSAL_TALLY_MS;
  const key = JSON.stringify([entry.org, entry.event, entry.sourceIp ?? '', entry.route ?? '', storedTokenId ?? '', window]);
  return `${String(window).padStart(13, '0')}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/**
 * An authentication failure: in the organization of a known (expired) token's owner, or the site log for tokens
 * nobody holds. Never stores the token, only its public id when known. Counted into the refusal tally of its source,
 * route and minute (`AuditStore.tally`), so an anonymous flood writes one record per source, route and minute.
 */
export async function auditAuthenticationFailure(
  deps: ServiceDeps,
  request: RequestInfo | undefined,
  reason: string,
  known?: { org: string; actor: string; tokenId?: string },
): Promise<void> {
  const base = entryFor(deps, request ? { login: 'anonymous', request } : undefined, { org: known?.org ?? '', event: 'auth.failed', description: reason });
  const entry: AuditEntry = {
    ...base,
    ...(request?.route ? { route: request.route } : {}),
    ...(known ? { actor: known.actor, ...(known.tokenId ? { tokenId: known.tokenId } : {}) } : {}),
  };
  // Only a stored token can be trusted to pick the tally; an OIDC subject is the caller's word.
  await deps.storage.audit.tally({ ...entry, id: refusalTallyId(entry, known?.tokenId) });
}

/** Records a refusal by the permission table (`authz.denied`) in the log of the organization it concerns. */
export async function auditDenial(deps: ServiceDeps, principal: Principal, denial: PermissionDeniedError): Promise<void> {
  const spec = { org: denial.org, event: 'authz.denied', target: denial.action, description: denial.message.slice(0, 500) } as const;
  await deps.storage.audit.append(entryFor(deps, actorOf(principal), spec));
}

/** Records a refusal the rules made (an update start without the approvals it needs: `plan.refused`). */
export async function auditRefusal(deps: ServiceDeps, principal: Principal, spec: AuditSpec): Promise<void> {
  await deps.storage.audit.append(entryFor(deps, actorOf(principal), spec));
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
      throw new PermissionDeniedError('Only site administrators read the site log (authentication failures of unknown tokens): give an organization instead.', '', 'read-site-log');
    }
  } else {
    requireOrgAction(principal, org, 'read-audit-log');
  }
  for (const [name, value] of [['since', query.since], ['before', query.before]] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new InvalidInputError(`Invalid ${name}: give a time.`);
  }
  // The first page publishes intents of requests that died, so the log read is never missing an action.
  if (query.continuationToken === undefined) await deps.storage.audit.recover(org, deps.now());
  return deps.storage.audit.list({ org, ...query });
}

/** The audit log as the API and the CLI read it. */
export interface AuditService {
  list(principal: Principal, org: string, query: AuditListQuery): Promise<AuditPage>;
}

export function createAuditService(deps: ServiceDeps): AuditService {
  return { list: (principal, org, query) => listAudit(deps, principal, org, query) };
}
