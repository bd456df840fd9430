import type { ApiClient } from '../api-client/api-client.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { OrgRole } from '../../shared/ports/identity-store.js';
import type { LocalServices } from './local-services.js';

export interface TokenInfo {
  id: string;
  description: string;
  login?: string;
  /** Epoch milliseconds. */
  createdAt?: number;
  expiresAt?: number;
  lastUsed?: number;
}

/** Users, organizations, members and personal tokens (`stackyard admin …`, `stackyard access token …`). */
export interface IdentityBackend {
  createUser(user: { login: string; name?: string; email?: string; admin?: boolean }): Promise<void>;
  createOrg(name: string): Promise<void>;
  listOrgs(): Promise<{ name: string; role: string }[]>;
  addMember(org: string, login: string, role: OrgRole): Promise<void>;
  /** The token value exists only in this answer. */
  createToken(request: { description: string; login?: string; expiresInDays?: number }): Promise<{ id: string; token: string }>;
  listTokens(login?: string): Promise<TokenInfo[]>;
  revokeToken(id: string, login?: string): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Seconds since the epoch on the wire (as the token routes answer) to milliseconds. */
const fromSeconds = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);

/** The identity routes of the service. */
export function httpIdentityBackend(client: ApiClient): IdentityBackend {
  return {
    async createUser(user) {
      await client.request({ method: 'POST', path: '/api/users', body: user, operation: 'create user' });
    },
    async createOrg(name) {
      await client.request({ method: 'POST', path: '/api/orgs', body: { name }, operation: 'create organization' });
    },
    async listOrgs() {
      const answer = await client.request<{ organizations?: { name: string; role: string }[] }>({ method: 'GET', path: '/api/orgs', operation: 'list organizations' });
      return answer?.organizations ?? [];
    },
    async addMember(org, login, role) {
      await client.request({ method: 'POST', path: `/api/orgs/${encodeURIComponent(org)}/members`, body: { login, role }, operation: 'add member' });
    },
    async createToken(request) {
      const answer = await client.request<{ id: string; tokenValue: string }>({ method: 'POST', path: '/api/user/tokens', body: request, operation: 'create token' });
      return { id: answer.id, token: answer.tokenValue };
    },
    async listTokens(login) {
      const answer = await client.request<{ tokens?: { id: string; description: string; login?: string; createdAt?: number; expiresAt?: number; lastUsed?: number }[] }>({
        method: 'GET',
        path: '/api/user/tokens',
        query: { login },
        operation: 'list tokens',
      });
      return (answer?.tokens ?? []).map((t) => ({
        id: t.id,
        description: t.description,
        login: t.login,
        createdAt: fromSeconds(t.createdAt),
        expiresAt: fromSeconds(t.expiresAt),
        lastUsed: fromSeconds(t.lastUsed),
      }));
    },
    async revokeToken(id, login) {
      await client.request({ method: 'DELETE', path: `/api/user/tokens/${encodeURIComponent(id)}`, query: { login }, operation: 'revoke token' });
    },
  };
}

/** The local backend's in-process identity service. */
export function localIdentityBackend(services: Pick<LocalServices, 'identity'>, principal: Principal): IdentityBackend {
  return {
    async createUser(user) {
      await (await services.identity()).createUser(principal, user);
    },
    async createOrg(name) {
      return (await services.identity()).createOrg(principal, name);
    },
    async listOrgs() {
      return (await services.identity()).listOrgs(principal);
    },
    async addMember(org, login, role) {
      return (await services.identity()).addMember(principal, org, login, role);
    },
    async createToken(request) {
      const { token, record } = await (await services.identity()).createToken(principal, {
        description: request.description,
        login: request.login,
        expiresInMs: request.expiresInDays === undefined ? undefined : Math.round(request.expiresInDays * DAY_MS),
      });
      return { id: record.id, token };
    },
    async listTokens(login) {
      const tokens = await (await services.identity()).listTokens(principal, login);
      return tokens.map((t) => ({ id: t.id, description: t.description, login: t.login, createdAt: t.createdAt, expiresAt: t.expiresAt, lastUsed: t.lastUsedAt }));
    },
    async revokeToken(id, login) {
      return (await services.identity()).revokeToken(principal, id, login);
    },
  };
}
