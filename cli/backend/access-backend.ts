/** Organization administration from the CLI: members and roles, teams, stack permissions, team and organization tokens. */
import type { StackRef } from '../../shared/core/names.js';
import type { DefaultStackPermission, StackPermission } from '../../shared/core/kernel/permissions.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { OrgRole, TokenRecord } from '../../shared/ports/identity-store.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { LocalServices } from './local-services.js';

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

const seg = encodeURIComponent;
const orgPath = (org: string) => `/api/orgs/${seg(org)}`;
const tokensPath = (org: string, team?: string) => `${orgPath(org)}${team === undefined ? '' : `/teams/${seg(team)}`}/tokens`;
const stackPath = (ref: StackRef) => `/api/stacks/${seg(ref.org)}/${seg(ref.project)}/${seg(ref.stack)}`;

interface WireToken {
  id: string;
  description: string;
  kind?: string;
  team?: string;
  createdBy?: string;
  createdAt?: number;
  expiresAt?: number;
  lastUsed?: number;
}

const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);

export function httpAccessBackend(client: ApiClient): AccessBackend {
  return {
    async listMembers(org) {
      const answer = await client.request<{ members?: { role: OrgRole; user: { githubLogin: string } }[] }>({
        method: 'GET',
        path: `${orgPath(org)}/members`,
        operation: 'list members',
      });
      return (answer?.members ?? []).map((m) => ({ login: m.user.githubLogin, role: m.role }));
    },
    async setMemberRole(org, login, role) {
      await client.request({ method: 'PATCH', path: `${orgPath(org)}/members/${seg(login)}`, body: { role }, operation: 'change role' });
    },
    async removeMember(org, login) {
      await client.request({ method: 'DELETE', path: `${orgPath(org)}/members/${seg(login)}`, operation: 'remove member' });
    },
    async setDefaultPermission(org, permission) {
      await client.request({ method: 'PATCH', path: `${orgPath(org)}/settings`, body: { defaultStackPermission: permission }, operation: 'change settings' });
    },
    async createTeam(org, name, description) {
      await client.request({ method: 'POST', path: `${orgPath(org)}/teams`, body: { name, description }, operation: 'create team' });
    },
    async listTeams(org) {
      const answer = await client.request<{ teams?: TeamInfo[] }>({ method: 'GET', path: `${orgPath(org)}/teams`, operation: 'list teams' });
      return answer?.teams ?? [];
    },
    async deleteTeam(org, name) {
      await client.request({ method: 'DELETE', path: `${orgPath(org)}/teams/${seg(name)}`, operation: 'delete team' });
    },
    async changeTeamMember(org, team, login, action) {
      await client.request({
        method: 'PATCH',
        path: `${orgPath(org)}/teams/${seg(team)}`,
        body: { memberAction: action, member: login },
        operation: 'change team',
      });
    },
    async listGrants(ref) {
      const answer = await client.request<{ permissions?: GrantInfo[] }>({ method: 'GET', path: `${stackPath(ref)}/permissions`, operation: 'list permissions' });
      return answer?.permissions ?? [];
    },
    async setGrant(ref, target, permission) {
      await client.request({ method: 'PATCH', path: `${stackPath(ref)}/permissions`, body: { ...target, permission }, operation: 'set permission' });
    },
    async createOrgToken(org, request) {
      const { team, ...body } = request;
      const answer = await client.request<{ id: string; tokenValue: string }>({ method: 'POST', path: tokensPath(org, team), body, operation: 'create token' });
      return { id: answer.id, token: answer.tokenValue };
    },
    async listOrgTokens(org, team) {
      const answer = await client.request<{ tokens?: WireToken[] }>({ method: 'GET', path: tokensPath(org, team), operation: 'list tokens' });
      return (answer?.tokens ?? []).map((t) => ({
        id: t.id,
        description: t.description,
        kind: t.kind ?? 'organization',
        ...(t.team !== undefined ? { team: t.team } : {}),
        ...(t.createdBy !== undefined ? { createdBy: t.createdBy } : {}),
        createdAt: ms(t.createdAt),
        expiresAt: ms(t.expiresAt),
        lastUsed: ms(t.lastUsed),
      }));
    },
    async revokeOrgToken(org, id, team) {
      await client.request({ method: 'DELETE', path: `${tokensPath(org, team)}/${seg(id)}`, operation: 'revoke token' });
    },
    async addOidcPolicy(org, policy) {
      return client.request<OidcPolicyInfo>({ method: 'POST', path: `${orgPath(org)}/oidc/policies`, body: policy, operation: 'add OIDC trust policy' });
    },
    async listOidcPolicies(org) {
      const answer = await client.request<{ policies?: OidcPolicyInfo[] }>({ method: 'GET', path: `${orgPath(org)}/oidc/policies`, operation: 'list OIDC trust policies' });
      return answer?.policies ?? [];
    },
    async removeOidcPolicy(org, id) {
      await client.request({ method: 'DELETE', path: `${orgPath(org)}/oidc/policies/${seg(id)}`, operation: 'remove OIDC trust policy' });
    },
    async auditLog(org, filter) {
      const entries: AuditInfo[] = [];
      let continuationToken: string | undefined;
      do {
        const answer = await client.request<{ auditLogEvents?: WireAuditEvent[]; continuationToken?: string | null }>({
          method: 'GET',
          path: `${orgPath(org)}/auditlogs`,
          query: {
            since: filter.since === undefined ? undefined : String(Math.floor(filter.since / 1000)),
            user: filter.actor,
            eventType: filter.event,
            pageSize: String(Math.min(filter.limit - entries.length, 1000)),
            continuationToken,
          },
          operation: 'list audit log',
        });
        for (const e of answer?.auditLogEvents ?? []) entries.push(fromWire(e));
        continuationToken = answer?.continuationToken ?? undefined;
      } while (continuationToken && entries.length < filter.limit);
      return entries;
    },
  };
}

interface WireAuditEvent {
  id: string;
  timestamp: number;
  event: string;
  description: string;
  user: { githubLogin: string };
  sourceIP?: string;
  tokenID?: string;
  requestID?: string;
  userAgent?: string;
  target?: string;
  outcome?: string;
  count?: number;
  lastSeen?: number;
  route?: string;
}

function fromWire(e: WireAuditEvent): AuditInfo {
  return {
    id: e.id,
    time: e.timestamp * 1000,
    event: e.event,
    actor: e.user.githubLogin,
    description: e.description,
    ...(e.target ? { target: e.target } : {}),
    ...(e.tokenID ? { tokenId: e.tokenID } : {}),
    ...(e.requestID ? { requestId: e.requestID } : {}),
    ...(e.sourceIP ? { sourceIp: e.sourceIP } : {}),
    ...(e.userAgent ? { userAgent: e.userAgent } : {}),
    ...(e.outcome ? { outcome: e.outcome } : {}),
    ...(typeof e.count === 'number' ? { count: e.count } : {}),
    ...(typeof e.lastSeen === 'number' ? { lastSeen: e.lastSeen * 1000 } : {}),
    ...(e.route ? { route: e.route } : {}),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

function listed(token: TokenRecord): OrgTokenInfo {
  return {
    id: token.id,
    description: token.description,
    kind: token.kind ?? 'personal',
    ...(token.team !== undefined ? { team: token.team } : {}),
    ...(token.createdBy !== undefined ? { createdBy: token.createdBy } : {}),
    createdAt: token.createdAt,
    expiresAt: token.expiresAt,
    lastUsed: token.lastUsedAt,
  };
}

/** `login --local`: the same service calls, in-process, as the local user (administrator of its organization). */
export function localAccessBackend(services: Pick<LocalServices, 'access' | 'audit' | 'oidc'>, principal: Principal): AccessBackend {
  const access = services.access;
  return {
    listMembers: async (org) => (await (await access()).listMembers(principal, org)).map((m) => ({ login: m.login, role: m.role })),
    setMemberRole: async (org, login, role) => (await access()).setMemberRole(principal, org, login, role),
    removeMember: async (org, login) => (await access()).removeMember(principal, org, login),
    setDefaultPermission: async (org, permission) => (await access()).setDefaultStackPermission(principal, org, permission),
    createTeam: async (org, name, description) => {
      await (await access()).createTeam(principal, org, name, description);
    },
    listTeams: async (org) => (await (await access()).listTeams(principal, org)).map(({ name, description, members }) => ({ name, description, members })),
    deleteTeam: async (org, name) => (await access()).deleteTeam(principal, org, name),
    changeTeamMember: async (org, team, login, action) => (await access()).changeTeamMember(principal, org, team, login, action),
    listGrants: async (ref) => (await access()).listStackGrants(principal, ref),
    setGrant: async (ref, target, permission) => (await access()).setStackGrant(principal, ref, target, permission),
    createOrgToken: async (org, request) => {
      const { token, record } = await (await access()).createOrgToken(principal, org, {
        description: request.description,
        ...(request.team !== undefined ? { team: request.team } : {}),
        ...(request.expiresInDays !== undefined ? { expiresInMs: Math.round(request.expiresInDays * DAY_MS) } : {}),
      });
      return { id: record.id, token };
    },
    listOrgTokens: async (org, team) => (await (await access()).listOrgTokens(principal, org, team)).map(listed),
    revokeOrgToken: async (org, id, team) => (await access()).revokeOrgToken(principal, org, id, team),
    addOidcPolicy: async (org, policy) => (await services.oidc()).createPolicy(principal, org, policy),
    listOidcPolicies: async (org) => (await services.oidc()).listPolicies(principal, org),
    removeOidcPolicy: async (org, id) => (await services.oidc()).deletePolicy(principal, org, id),
    auditLog: async (org, filter) => {
      const entries: AuditInfo[] = [];
      let continuationToken: string | undefined;
      do {
        const page = await (await services.audit()).list(principal, org, {
          ...(filter.since !== undefined ? { since: filter.since } : {}),
          ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
          ...(filter.event !== undefined ? { event: filter.event } : {}),
          limit: Math.min(filter.limit - entries.length, 1000),
          ...(continuationToken !== undefined ? { continuationToken } : {}),
        });
        entries.push(...page.entries);
        continuationToken = page.continuationToken;
      } while (continuationToken !== undefined && entries.length < filter.limit);
      return entries;
    },
  };
}
