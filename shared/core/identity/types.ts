import type { OrgRole, TokenRecord, UserRecord } from '../../ports/identity-store.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';

export interface IdentityService {
  /** Resolves an API token to its principal; `UnauthorizedError` when unknown, revoked or expired. */
  /** `request` (the HTTP request acting) goes into the audit log, for failures too, and onto the principal. */
  authenticate(token: string, request?: RequestInfo): Promise<Principal>;
  /**
   * `authenticate` for a token known by its SHA-256 hex only (a console session opened with it): the same checks, so
   * revoking or expiring the token ends the sessions it opened.
   */
  authenticateHash(tokenHash: string, request?: RequestInfo): Promise<Principal>;
  getUser(principal: Principal): Promise<UserRecord & { orgs: string[] }>;
  /** The organization unqualified stack names default to: the personal organization (named after the login). */
  defaultOrg(principal: Principal): Promise<string>;
  /** Organizations the principal may see (admins: all), with their members. */
  listOrgs(principal: Principal): Promise<{ name: string; role: OrgRole }[]>;
  /** Admin only. Creates the user and its personal organization. */
  createUser(principal: Principal, user: { login: string; name?: string; email?: string; admin?: boolean }): Promise<UserRecord>;
  /** Admin only, or an admin of the organization. */
  createOrg(principal: Principal, name: string): Promise<void>;
  addMember(principal: Principal, org: string, login: string, role: OrgRole): Promise<void>;
  /** Returns the plaintext token once; only its hash is stored. Admins may create tokens for other users. */
  createToken(principal: Principal, request: { login?: string; description: string; expiresInMs?: number }): Promise<{ token: string; record: TokenRecord }>;
  listTokens(principal: Principal, login?: string): Promise<TokenRecord[]>;
  revokeToken(principal: Principal, id: string, login?: string): Promise<void>;
  /** Creates or refreshes an administrator with the given token (serve's STACKYARD_ADMIN_TOKEN, admin bootstrap). */
  ensureAdmin(login: string, token: string): Promise<void>;
}
