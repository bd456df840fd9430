/** The identity calls of `login --local`, in-process (loaded on first use: see lazy-sub-backend.ts). */
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { LocalServices } from './local-services.js';
import type { IdentityBackend } from './identity-backend.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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
