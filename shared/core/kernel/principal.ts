/** Who calls a use case: the principal, the token it acts with, and the request it came in. */
import type { OrgRole, TokenKind } from '../../ports/identity-store.js';

/**
 * The use cases shared by the HTTP API (functions/) and the CLI's local backend. They take the caller as a
 * `Principal` and enforce authorization themselves: a stack of an organization the principal does not belong to
 * is reported as not found, so names cannot be probed.
 */
export interface Principal {
  /** The user's login; for team and organization tokens, the token's owner key (`acme.team.ops`, `acme.org`). */
  login: string;
  /** Organizations the user belongs to (always includes the personal organization named after the login). */
  orgs: readonly string[];
  /** Site administrator: manages users and organizations (not other organizations' stacks). */
  admin: boolean;
  /** The caller's role in each organization of `orgs` (team and organization tokens have none). */
  roles: Readonly<Record<string, OrgRole>>;
  /** The token the caller authenticated with (absent for in-process callers such as the local backend). */
  token?: PrincipalToken;
  /** The HTTP request acting, for the audit log (absent in-process). */
  request?: RequestInfo;
}

/** Where a request came from, as the audit log records it. */
export interface RequestInfo {
  id: string;
  sourceIp?: string;
  userAgent?: string;
  /** The API route it matched, as the route table spells it (`GET /api/user`): refusals are tallied per route. */
  route?: string;
}

/** Which token a principal acts with; team and organization tokens act with only that team's or organization's rights. */
export interface PrincipalToken {
  id: string;
  kind: TokenKind;
  org?: string;
  team?: string;
  /** A deployment token's stack (its id) and run: the only stack it may touch. */
  stackId?: string;
  runId?: string;
  description: string;
  /** The user who created a team or organization token. */
  createdBy?: string;
}
