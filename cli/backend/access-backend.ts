/** Organization administration from the CLI: members and roles, teams, stack permissions, team and organization tokens. */
import type { StackRef } from '../../shared/core/names.js';
import type { DefaultStackPermission, StackPermission } from '../../shared/core/kernel/permissions.js';
import type { OrgRole } from '../../shared/ports/identity-store.js';

export interface MemberInfo {
  login: string;
  role: OrgRole;
}

export interface TeamInfo {
  name: string;
  description: string;
  members: string[];
}

export interface GrantInfo {
  subject: 'user' | 'team';
  name: string;
  permission: StackPermission;
}

/** A team's or organization's token as listed (epoch milliseconds); the token itself is never listed. */
export interface OrgTokenInfo {
  id: string;
  description: string;
  kind: string;
  team?: string;
  createdBy?: string;
  createdAt?: number;
  expiresAt?: number;
  lastUsed?: number;
}

export type GrantTarget = { user: string } | { team: string };

/** An organization's trust in an OIDC issuer, as `org oidc-policy` shows and creates it. */
export interface OidcPolicyInfo {
  id: string;
  issuer: string;
  audiences: string[];
  claims: Record<string, string>;
  tokenKind: 'organization' | 'team' | 'personal';
  team?: string;
  user?: string;
  maxLifetimeSeconds: number;
  description: string;
  createdBy?: string;
}

export type OidcPolicyRequest = Omit<OidcPolicyInfo, 'id' | 'createdBy' | 'audiences' | 'maxLifetimeSeconds' | 'description'> & {
  audiences?: string[];
  maxLifetimeSeconds?: number;
  description?: string;
};

/** One audit log entry as `audit ls` shows it (epoch milliseconds). */
export interface AuditInfo {
  id: string;
  time: number;
  event: string;
  actor: string;
  description: string;
  target?: string;
  tokenId?: string;
  requestId?: string;
  sourceIp?: string;
  userAgent?: string;
  outcome?: string;
  /** A refusal tally: how many refusals it stands for, the latest one's time (`time` is the first's) and the route. */
  count?: number;
  lastSeen?: number;
  route?: string;
}

export interface AuditFilter {
  since?: number;
  actor?: string;
  event?: string;
  limit: number;
}

/** The same verbs on both backends; the service enforces who may use them. */
export interface AccessBackend {
  listMembers(org: string): Promise<MemberInfo[]>;
  setMemberRole(org: string, login: string, role: OrgRole): Promise<void>;
  removeMember(org: string, login: string): Promise<void>;
  setDefaultPermission(org: string, permission: DefaultStackPermission): Promise<void>;
  createTeam(org: string, name: string, description?: string): Promise<void>;
  listTeams(org: string): Promise<TeamInfo[]>;
  deleteTeam(org: string, name: string): Promise<void>;
  changeTeamMember(org: string, team: string, login: string, action: 'add' | 'remove'): Promise<void>;
  listGrants(ref: StackRef): Promise<GrantInfo[]>;
  setGrant(ref: StackRef, target: GrantTarget, permission: StackPermission | null): Promise<void>;
  createOrgToken(org: string, request: { description: string; team?: string; expiresInDays?: number }): Promise<{ id: string; token: string }>;
  listOrgTokens(org: string, team?: string): Promise<OrgTokenInfo[]>;
  revokeOrgToken(org: string, id: string, team?: string): Promise<void>;
  addOidcPolicy(org: string, policy: OidcPolicyRequest): Promise<OidcPolicyInfo>;
  listOidcPolicies(org: string): Promise<OidcPolicyInfo[]>;
  removeOidcPolicy(org: string, id: string): Promise<void>;
  /** Newest first, at most `limit` entries (following pages); organization admins only. */
  auditLog(org: string, filter: AuditFilter): Promise<AuditInfo[]>;
}
