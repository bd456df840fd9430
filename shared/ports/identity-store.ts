import type { DefaultStackPermission } from '../core/kernel/permissions.js';

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
  /** What members may do on stacks they were given nothing on (absent = `write`, see docs/security.md). */
  defaultStackPermission?: DefaultStackPermission;
}

/** `admin` manages the organization; `member` works on stacks; `viewer` only reads them. */
export type OrgRole = 'admin' | 'member' | 'viewer';

export const ORG_ROLES: readonly OrgRole[] = ['admin', 'member', 'viewer'];

/** A team of an organization's members; stacks grant permissions to teams as to users. */
export interface TeamRecord {
  org: string;
  name: string;
  description: string;
  /** Logins, sorted. */
  members: string[];
  createdAt: number;
}

export interface Membership {
  org: string;
  login: string;
  role: OrgRole;
}

/**
 * Pulumi Cloud's token kinds: a user's own, a team's, an organization's; and Stackyard's run-scoped `deployment`
 * token, minted by a runner for one run of one stack (docs/deployments.md).
 */
export type TokenKind = UserTokenKind | 'deployment';

/** The kinds a person (or an OIDC exchange) can ask for; deployment tokens are only ever minted by a runner. */
export type UserTokenKind = 'personal' | 'team' | 'organization';

export interface TokenRecord {
  /** Public id used to list and revoke (never the token itself). */
  id: string;
  /** SHA-256 hex of the token; the plaintext is never stored. */
  tokenHash: string;
  /**
   * The owner the token is listed under: the user's login for personal tokens, `tokenOwnerKey(…)` for team and
   * organization tokens (contains a `.`, which logins never do, so the two never collide).
   */
  login: string;
  description: string;
  createdAt: number;
  /** Epoch milliseconds; absent = no expiry. */
  expiresAt?: number;
  /** Absent on tokens stored before kinds existed: personal. */
  kind?: TokenKind;
  /** The organization of a team or organization token. */
  org?: string;
  /** The team of a team token. */
  team?: string;
  /** The stack (its id) and the run a deployment token acts for; it may touch nothing else. */
  stackId?: string;
  runId?: string;
  /** Login of the user who created the token. */
  createdBy?: string;
  /** Epoch milliseconds of the last authenticated use (recorded at most once a minute). */
  lastUsedAt?: number;
}

/**
 * An organization's trust in an OIDC issuer (docs/security.md, "OIDC for CI"): an ID token of `issuer` whose `aud`
 * is one of `audiences` and whose claims match `claims` (`*` matches any run of characters) may be exchanged for a
 * token of `tokenKind` (the team's or the user's when `team`/`user` is set) living at most `maxLifetimeSeconds`.
 */
export interface OidcPolicyRecord {
  org: string;
  /** Public id used to list and delete. */
  id: string;
  /** Exact `iss` value, an https URL; its discovery document and JWKS are fetched from it. */
  issuer: string;
  /** Accepted `aud` values (exact). */
  audiences: string[];
  /** Claim name → pattern the claim's string value must match in full. */
  claims: Record<string, string>;
  tokenKind: UserTokenKind;
  /** The team of a team-token policy. */
  team?: string;
  /** The user of a personal-token policy. */
  user?: string;
  maxLifetimeSeconds: number;
  description: string;
  createdAt: number;
  createdBy: string;
}

/** The listing owner of a team or organization token; logins never contain '.', so these cannot collide. */
export function tokenOwnerKey(kind: 'team' | 'organization', org: string, team?: string): string {
  return kind === 'organization' ? `${org}.org` : `${org}.team.${team ?? ''}`;
}

/** The listing owner of a run's deployment token: one owner per run, so revoking it at the run's end touches no other. */
export function deploymentTokenOwner(org: string, runId: string): string {
  return `${org}.deployment.${runId}`;
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
  /** May still find a token that expired (it is removed some time after expiry): callers check `expiresAt`. */
  findToken(tokenHash: string): Promise<TokenRecord | undefined>;
  /** The owner's tokens that have not expired by the store's clock: expired ones are never listed. */
  listTokens(login: string): Promise<TokenRecord[]>;
  /** Removes the token; `NotFoundError` if this user has no token with that id. */
  revokeToken(login: string, id: string): Promise<void>;
  /** Sets `lastUsedAt` when the stored one is older than `at - minIntervalMs` (or absent); never fails a request. */
  touchToken(tokenHash: string, at: number, minIntervalMs: number): Promise<void>;
  /** Changes a member's role; `NotFoundError` if the user is not a member (one conditional write). */
  setMemberRole(org: string, login: string, role: OrgRole): Promise<void>;
  /** `NotFoundError` if the user is not a member. */
  removeMember(org: string, login: string): Promise<void>;
  /** The organization's members, sorted by login. */
  listMembers(org: string): Promise<Membership[]>;
  /** `NotFoundError` for a missing organization (one conditional write). */
  setDefaultStackPermission(org: string, permission: DefaultStackPermission): Promise<void>;
  /** Create-if-absent (`ConflictError`). */
  createTeam(team: TeamRecord): Promise<void>;
  getTeam(org: string, name: string): Promise<TeamRecord>;
  listTeams(org: string): Promise<TeamRecord[]>;
  deleteTeam(org: string, name: string): Promise<void>;
  /** Adds or removes one member atomically (no read-modify-write); `NotFoundError` for a missing team. */
  changeTeamMember(org: string, name: string, login: string, action: 'add' | 'remove'): Promise<void>;
  /**
   * Create-if-absent by `(org, id)` (`ConflictError`); `OidcPolicyLimitError` when the organization already has
   * `maxPerOrg` policies. The count is checked in the same atomic step as the create, so concurrent creates (other
   * processes included) never leave more than `maxPerOrg`, and a refused create stores nothing.
   */
  createOidcPolicy(policy: OidcPolicyRecord, maxPerOrg: number): Promise<void>;
  /** The organization's trust policies, oldest first. */
  listOidcPolicies(org: string): Promise<OidcPolicyRecord[]>;
  /** `NotFoundError` when the organization has no policy with that id; frees its place under the cap in the same step. */
  deleteOidcPolicy(org: string, id: string): Promise<void>;
}
