/** The access calls of `login --local`, in-process (loaded on first use: see lazy-sub-backend.ts). */
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { TokenRecord } from '../../shared/ports/identity-store.js';
import type { LocalServices } from './local-services.js';
import type { AccessBackend, AuditInfo, OrgTokenInfo } from './access-backend.js';

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
