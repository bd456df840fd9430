import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, UnauthorizedError } from '../errors.js';
import { validateOrgName } from '../names.js';
import type { OrgRole, TokenRecord, UserRecord } from '../../ports/identity-store.js';
import { requireAdmin, requireMember } from './authorization.js';
import type { ServiceDeps } from './create-services.js';
import type { IdentityService, Principal } from './types.js';

/** Prefix of the API tokens we issue, so a leaked one is recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'sy_';
const MAX_DESCRIPTION_LENGTH = 200;
const MAX_NAME_LENGTH = 200;
const MAX_TOKEN_LENGTH = 1024;

/** SHA-256 hex of an API token: the only form in which tokens are stored or looked up. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

const INVALID_TOKEN =
  'The access token is not valid (unknown, revoked or expired): log in again with a valid token, or ask an ' +
  'administrator for a new one.';

/**
 * Users, organizations and API tokens. A user's login is also the name of its personal organization, so logins
 * follow the organization name rules, and the organization record is what reserves a name: whoever creates it
 * first owns the name, and a user can never be created over an existing organization (which would make the user a
 * member of it).
 */
export function createIdentityService(deps: ServiceDeps): IdentityService {
  const identity = deps.storage.identity;

  async function orgsOf(login: string): Promise<{ name: string; role: OrgRole }[]> {
    const memberships = await identity.listMemberships(login);
    const orgs = memberships.map((m) => ({ name: m.org, role: m.role }));
    if (!orgs.some((org) => org.name === login)) orgs.push({ name: login, role: 'admin' });
    return orgs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async function principalOf(login: string, unknownUser: string): Promise<Principal> {
    const user = await identity.getUser(login).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new UnauthorizedError(unknownUser);
      throw error;
    });
    const orgs = await orgsOf(user.login);
    return { login: user.login, orgs: orgs.map((org) => org.name), admin: user.admin };
  }

  /** The login a token operation is about: the caller's own, or (administrators only) someone else's. */
  async function tokenOwner(principal: Principal, login: string | undefined): Promise<string> {
    if (login === undefined || login === principal.login) return principal.login;
    requireAdmin(principal);
    await identity.getUser(validateLogin(login)).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw userNotFound(login);
      throw error;
    });
    return login;
  }

  return {
    async authenticate(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        throw new UnauthorizedError(INVALID_TOKEN);
      }
      const tokenHash = hashApiToken(token);
      const record = await identity.findToken(tokenHash);
      if (!record || !sameHash(record.tokenHash, tokenHash)) throw new UnauthorizedError(INVALID_TOKEN);
      if (record.expiresAt !== undefined && record.expiresAt <= deps.now()) throw new UnauthorizedError(INVALID_TOKEN);
      return principalOf(record.login, INVALID_TOKEN);
    },

    principalOf: (login) => principalOf(login, 'This user no longer exists: sign in again as another user.'),

    async getUser(principal) {
      const user = await identity.getUser(principal.login);
      const orgs = await orgsOf(principal.login);
      return { ...user, orgs: orgs.map((org) => org.name) };
    },

    async defaultOrg(principal) {
      return principal.login;
    },

    // The identity store lists organizations per user only, so administrators too see the organizations they
    // belong to; that is also the set of organizations whose stacks they can reach.
    async listOrgs(principal) {
      return orgsOf(principal.login);
    },

    async createUser(principal, request) {
      requireAdmin(principal);
      const login = validateLogin(request.login);
      const name = optionalText(request.name, 'name', MAX_NAME_LENGTH) ?? login;
      const email = optionalText(request.email, 'email', MAX_NAME_LENGTH);
      if (request.admin !== undefined && typeof request.admin !== 'boolean') {
        throw new InvalidInputError('The admin flag must be true or false.');
      }
      const now = deps.now();
      // The personal organization first: it reserves the name (see above), so a failure leaves no user behind.
      await identity.createOrg({ name: login, createdAt: now }).catch((error: unknown) => {
        if (error instanceof ConflictError) {
          throw new ConflictError(
            `The name '${login}' already exists as a user or an organization: choose another login.`,
            { login },
            { cause: error },
          );
        }
        throw error;
      });
      const user: UserRecord = {
        login,
        name,
        ...(email !== undefined ? { email } : {}),
        admin: request.admin ?? false,
        createdAt: now,
      };
      await identity.createUser(user).catch((error: unknown) => {
        if (error instanceof ConflictError) {
          throw new ConflictError(`User '${login}' already exists: choose another login.`, { login }, { cause: error });
        }
        throw error;
      });
      await identity.addMember({ org: login, login, role: 'admin' });
      return user;
    },

    async createOrg(principal, name) {
      requireAdmin(principal);
      const org = validateOrgName(name);
      await identity.createOrg({ name: org, createdAt: deps.now() }).catch((error: unknown) => {
        if (error instanceof ConflictError) {
          throw new ConflictError(
            `The name '${org}' already exists as an organization or a user: choose another name.`,
            { org },
            { cause: error },
          );
        }
        throw error;
      });
      // The creator administers the new organization, so it can add members and use its stacks at once.
      await identity.addMember({ org, login: principal.login, role: 'admin' });
    },

    async addMember(principal, org, login, role) {
      validateOrgName(org);
      validateLogin(login);
      if (role !== 'admin' && role !== 'member') {
        throw new InvalidInputError(`Unknown role '${String(role)}': use 'admin' or 'member'.`);
      }
      if (!principal.admin) {
        requireMember(principal, org);
        const own = (await orgsOf(principal.login)).find((entry) => entry.name === org);
        if (own?.role !== 'admin') {
          throw new ForbiddenError(
            `Only administrators of organization '${org}' may add members: ask one of them to add '${login}'.`,
          );
        }
      }
      await identity.getOrg(org).catch((error: unknown) => {
        if (error instanceof NotFoundError) {
          throw new NotFoundError(`Organization '${org}' not found: create it first.`, { cause: error });
        }
        throw error;
      });
      await identity.getUser(login).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw userNotFound(login);
        throw error;
      });
      await identity.addMember({ org, login, role }).catch((error: unknown) => {
        if (error instanceof ConflictError) {
          throw new ConflictError(`'${login}' is already a member of '${org}'.`, { org, login }, { cause: error });
        }
        throw error;
      });
    },

    async createToken(principal, request) {
      const login = await tokenOwner(principal, request.login);
      const description = optionalText(request.description, 'description', MAX_DESCRIPTION_LENGTH) ?? '';
      const { expiresInMs } = request;
      if (expiresInMs !== undefined && (!Number.isSafeInteger(expiresInMs) || expiresInMs <= 0)) {
        throw new InvalidInputError('The token lifetime must be a positive number of milliseconds.');
      }
      const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const now = deps.now();
      const record: TokenRecord = {
        id: randomUUID(),
        tokenHash: hashApiToken(token),
        login,
        description,
        createdAt: now,
        ...(expiresInMs !== undefined ? { expiresAt: now + expiresInMs } : {}),
      };
      await identity.putToken(record);
      return { token, record };
    },

    async listTokens(principal, login) {
      return identity.listTokens(await tokenOwner(principal, login));
    },

    async revokeToken(principal, id, login) {
      const owner = await tokenOwner(principal, login);
      if (typeof id !== 'string' || id.length === 0) {
        throw new InvalidInputError('Give the id of the token to revoke (see the token list).');
      }
      await identity.revokeToken(owner, id).catch((error: unknown) => {
        if (error instanceof NotFoundError || error instanceof InvalidInputError) {
          throw new NotFoundError(`Token '${id}' not found for '${owner}': list the tokens to see their ids.`, {
            cause: error,
          });
        }
        throw error;
      });
    },

    async ensureAdmin(login, token) {
      validateLogin(login);
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        throw new InvalidInputError(`The administrator token must be 1 to ${MAX_TOKEN_LENGTH} characters.`);
      }
      const now = deps.now();
      const existing = await identity.getUser(login).catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      await identity.putUser({
        login,
        name: existing?.name ?? login,
        ...(existing?.email !== undefined ? { email: existing.email } : {}),
        admin: true,
        createdAt: existing?.createdAt ?? now,
      });
      await identity.createOrg({ name: login, createdAt: now }).catch(ignoreConflict);
      await identity.addMember({ org: login, login, role: 'admin' }).catch(ignoreConflict);

      const tokenHash = hashApiToken(token);
      // Derived from the hash, so concurrent start-ups with the same token write the same record, and one wins.
      const record: TokenRecord = {
        id: `admin-${tokenHash.slice(0, 16)}`,
        tokenHash,
        login,
        description: 'administrator token (configured)',
        createdAt: now,
      };
      const found = await identity.findToken(tokenHash);
      if (!found) await identity.putToken(record).catch(ignoreConflict);
      const stored = found ?? (await identity.findToken(tokenHash));
      if (stored?.login !== login) {
        throw new ConflictError(
          `The configured administrator token is already a token of another user: configure a different token ` +
            `for administrator '${login}'.`,
        );
      }
    },
  };
}

/** Logins name the user's personal organization, so they follow the organization name rules. */
function validateLogin(login: unknown): string {
  if (typeof login !== 'string' || !/^[a-zA-Z0-9][a-zA-Z0-9-_]{1,38}[a-zA-Z0-9]$/.test(login)) {
    throw new InvalidInputError(
      `Invalid login '${String(login).slice(0, 60)}': a login names the user's personal organization, so it must be ` +
        `3 to 40 letters, digits, hyphens or underscores, starting and ending with a letter or digit.`,
    );
  }
  return login;
}

function optionalText(value: unknown, what: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) {
    throw new InvalidInputError(`The ${what} must be text of at most ${max} characters.`);
  }
  return value;
}

function userNotFound(login: string): NotFoundError {
  return new NotFoundError(`User '${login}' not found: create the user first.`);
}

function ignoreConflict(error: unknown): void {
  if (!(error instanceof ConflictError)) throw error;
}
