/** The access routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { StackRef } from '../../shared/core/names.js';
import type { OrgRole } from '../../shared/ports/identity-store.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { AccessBackend, AuditInfo, GrantInfo, OidcPolicyInfo, TeamInfo } from './access-backend.js';

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
