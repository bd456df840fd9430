import { InvalidInputError } from '../../../shared/core/errors.js';
import type { AuditListQuery } from '../../../shared/core/audit/audit.js';
import type { AuditEntry } from '../../../shared/ports/audit-store.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import type { RouteContext } from '../context.js';

function seconds(text: string | null, what: string): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^[0-9]{1,12}$/.test(text)) throw new InvalidInputError(`${what} must be a Unix time in seconds, got '${text.slice(0, 20)}'.`);
  return Number(text) * 1000;
}

/** Pulumi Cloud's query (`eventType`, `user`, `startTime` = the upper bound, `continuationToken`) plus `since`, `pageSize`. */
function auditQuery(query: URLSearchParams): AuditListQuery {
  const pageSize = query.get('pageSize');
  if (pageSize !== null && !/^[0-9]{1,4}$/.test(pageSize)) throw new InvalidInputError('pageSize must be a whole number.');
  return {
    ...(query.get('eventType') ? { event: query.get('eventType')! } : {}),
    ...(query.get('user') ? { actor: query.get('user')! } : {}),
    ...(query.get('startTime') ? { before: seconds(query.get('startTime'), 'startTime')! + 1000 } : {}),
    ...(query.get('since') ? { since: seconds(query.get('since'), 'since')! } : {}),
    ...(pageSize !== null ? { limit: Number(pageSize) } : {}),
    ...(query.get('continuationToken') ? { continuationToken: query.get('continuationToken')! } : {}),
  };
}

/**
 * `AuditLogEvent` as the Pulumi CLI decodes it, plus Stackyard's id, request id, user agent, target (with the revision
 * for an environment's), outcome, and for a refusal tally its `count`, `lastSeen` (Unix seconds; `timestamp` is the
 * first refusal) and `route`.
 */
function auditLogEvent(entry: AuditEntry) {
  return {
    id: entry.id,
    timestamp: Math.floor(entry.time / 1000),
    event: entry.event,
    description: entry.description,
    user: { name: entry.actor, githubLogin: entry.actor, avatarUrl: '' },
    sourceIP: entry.sourceIp ?? '',
    ...(entry.tokenId !== undefined ? { tokenID: entry.tokenId } : {}),
    ...(entry.requestId !== undefined ? { requestID: entry.requestId } : {}),
    ...(entry.userAgent !== undefined ? { userAgent: entry.userAgent } : {}),
    ...(entry.target !== undefined ? { target: entry.target } : {}),
    ...(entry.revision !== undefined ? { revision: entry.revision } : {}),
    ...(entry.outcome !== undefined ? { outcome: entry.outcome } : {}),
    ...(entry.count !== undefined ? { count: entry.count } : {}),
    ...(entry.lastSeen !== undefined ? { lastSeen: Math.floor(entry.lastSeen / 1000) } : {}),
    ...(entry.route !== undefined ? { route: entry.route } : {}),
  };
}

async function list(ctx: RouteContext, org: string) {
  const page = await ctx.services.audit.list(await ctx.principal(), org, auditQuery(ctx.request.query));
  return jsonResponse(200, {
    auditLogEvents: page.entries.map(auditLogEvent),
    ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}),
  });
}

export const auditRoutes: Route[] = [
  { method: 'GET', path: '/api/orgs/{orgName}/auditlogs', group: 'identity', handle: (ctx) => list(ctx, ctx.params.orgName!) },
  /** The site log: authentication failures of tokens nobody holds, user creation; site administrators only. */
  { method: 'GET', path: '/api/admin/auditlogs', group: 'identity', handle: (ctx) => list(ctx, '') },
];
