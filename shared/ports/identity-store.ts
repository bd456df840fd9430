export interface UserRecord {
  login: string;
  name: string;
  email?: string;
  /** Administrators may use the admin routes. */
  admin: boolean;
  createdAt: number;
}

export interface OrgRecord {
  name: string;
  createdAt: number;
}

export type OrgRole = 'admin' | 'member';

export interface Membership {
  org: string;
  login: string;
  role: OrgRole;
}

export interface TokenRecord {
  /** Public id used to list and revoke (never the token itself). */
  id: string;
  /** SHA-256 hex of the token; the plaintext is never stored. */
  tokenHash: string;
  login: string;
  description: string;
  createdAt: number;
  /** Epoch milliseconds; absent = no expiry. */
  expiresAt?: number;
}

/**
 * Users, organizations, memberships and API tokens.
 *
 * Guarantees: `createUser`, `createOrg`, `addMember` and `putToken` are create-if-absent (`ConflictError`
 * otherwise, nothing changed); lookups of missing items throw `NotFoundError` except `findToken`, which returns
 * `undefined` so callers cannot tell "unknown" from "revoked".
 */
export interface IdentityStore {
  createUser(user: UserRecord): Promise<UserRecord>;
  getUser(login: string): Promise<UserRecord>;
  /** Creates or overwrites (used to re-apply a configured administrator at start-up). */
  putUser(user: UserRecord): Promise<UserRecord>;
  createOrg(org: OrgRecord): Promise<OrgRecord>;
  getOrg(name: string): Promise<OrgRecord>;
  addMember(membership: Membership): Promise<void>;
  /** The organizations a user belongs to, sorted by name. */
  listMemberships(login: string): Promise<Membership[]>;
  putToken(token: TokenRecord): Promise<void>;
  findToken(tokenHash: string): Promise<TokenRecord | undefined>;
  listTokens(login: string): Promise<TokenRecord[]>;
  /** Removes the token; `NotFoundError` if this user has no token with that id. */
  revokeToken(login: string, id: string): Promise<void>;
}
