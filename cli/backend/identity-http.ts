/** The identity routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { ApiClient } from '../api-client/api-client.js';
import type { IdentityBackend } from './identity-backend.js';

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
