import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError, PermissionDeniedError, UnauthorizedError } from '../errors.js';
import { validateOrgName } from '../names.js';
import { ORG_ROLES, type OrgRole, type TokenRecord, type UserRecord } from '../../ports/identity-store.js';
import { requireAdmin, requireOrgAction } from '../kernel/authorization.js';
import { auditAuthenticationFailure, audited } from '../audit/audit.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { IdentityService } from './types.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';

/** Prefix of the API tokens we issue, so a leaked one is recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'sy_';
const MAX_DESCRIPTION_LENGTH = 200;
const MAX_NAME_LENGTH = 200;
const MAX_TOKEN_LENGTH = 1024;
/** `lastUsedAt` is written at most this often per token, so a busy CI token costs one write a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

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

function expiredTokenMessage(expiresAt: number): string {
  return (
    `The access token expired at ${new Date(expiresAt).toISOString()}: log in again with a valid token, or ask an ` +
    'administrator for a new one.'
  );
}

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

  /** The login a token operation is about: the caller's own, or (administrators only) someone else's. */
  async function tokenOwner(principal: Principal, login: string | undefined): Promise<string> {
    if (principal.token && principal.token.kind !== 'personal') {
      throw new PermissionDeniedError(
        `A ${principal.token.kind} token cannot manage personal tokens: use a personal token (stackyard login).`,
        principal.token.org ?? '',
        'manage-personal-tokens',
      );
    }
    if (login === undefined || login === principal.login) return principal.login;
    requireAdmin(principal);
    await identity.getUser(validateLogin(login)).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw userNotFound(login);
      throw error;
    });
    return login;
  }

  /** A token's principal: its user with the user's roles, or a team or organization token with only its own rights. */
  async function principalOf(record: TokenRecord): Promise<Principal> {
    const kind = record.kind ?? 'personal';
    const tokenInfo = {
      id: record.id,
      kind,
      description: record.description,
      ...(record.org !== undefined ? { org: record.org } : {}),
      ...(record.team !== undefined ? { team: record.team } : {}),
      ...(record.stackId !== undefined ? { stackId: record.stackId } : {}),
      ...(record.runId !== undefined ? { runId: record.runId } : {}),
      ...(record.createdBy !== undefined ? { createdBy: record.createdBy } : {}),
    };
    if (kind === 'deployment') {
      // Acts as the user who queued the run (history names them), with nothing but the run's stack (authorization.ts).
      if (record.org === undefined || record.stackId === undefined || record.createdBy === undefined) throw new UnauthorizedError(INVALID_TOKEN);
      await identity.getOrg(record.org).catch(unknownAsInvalid);
      return { login: record.createdBy, orgs: [record.org], admin: false, roles: {}, token: tokenInfo };
    }
    if (kind !== 'personal') {
      const org = record.org;
      if (org === undefined) throw new UnauthorizedError(INVALID_TOKEN);
      await identity.getOrg(org).catch(unknownAsInvalid);
      // A deleted team takes its tokens with it.
      if (kind === 'team') await identity.getTeam(org, record.team ?? '').catch(unknownAsInvalid);
      return { login: record.login, orgs: [org], admin: false, roles: {}, token: tokenInfo };
    }
    const user = await identity.getUser(record.login).catch(unknownAsInvalid);
    const orgs = await orgsOf(user.login);
    return {
      login: user.login,
      orgs: orgs.map((org) => org.name),
      admin: user.admin,
      roles: Object.fromEntries(orgs.map((org) => [org.name, org.role])),
      token: tokenInfo,
    };
  }

  /** Every refusal is audited: expired tokens in their owner's organization, unknown ones in the site log. */
  async function refuse(request: RequestInfo | undefined, reason: string, known?: TokenRecord, message = INVALID_TOKEN): Promise<never> {
    const owner = known && { org: known.org ?? known.login, actor: known.login, tokenId: known.id };
    await auditAuthenticationFailure(deps, request, reason, owner);
    throw new UnauthorizedError(message);
  }

  async function authenticateHash(tokenHash: string, request?: RequestInfo): Promise<Principal> {
    const record = await identity.findToken(tokenHash);
    if (!record || !sameHash(record.tokenHash, tokenHash)) return refuse(request, 'unknown or revoked access token');
    const now = deps.now();
    if (record.expiresAt !== undefined && record.expiresAt <= now) {
      // Only the token's holder can get this far, so saying when it expired tells nobody else anything.
      return refuse(request, `expired access token ${record.id}`, record, expiredTokenMessage(record.expiresAt));
    }
    const principal = await principalOf(record).catch((error: unknown) =>
      error instanceof UnauthorizedError ? refuse(request, `access token ${record.id} of a deleted user, team or organization`, record) : Promise.reject(error),
    );
    await recordUse(record, now);
    return request ? { ...principal, request } : principal;
  }

  /** Touches of a token already on their way, so concurrent requests with one token ask storage once. */
  const touching = new Map<string, Promise<void>>();

  /**
   * Last use is bookkeeping: a failure to record it never fails the request. The record just read says whether it
   * is due, so a token used within the resolution costs no storage call at all (no write, no lock), which keeps
   * concurrent requests from queueing behind one another on it.
   */
  async function recordUse(record: TokenRecord, now: number): Promise<void> {
    if (record.lastUsedAt !== undefined && record.lastUsedAt > now - LAST_USED_RESOLUTION_MS) return;
    let touch = touching.get(record.tokenHash);
    if (!touch) {
      touch = identity
        .touchToken(record.tokenHash, now, LAST_USED_RESOLUTION_MS)
        .catch(() => undefined)
        .finally(() => touching.delete(record.tokenHash));
      touching.set(record.tokenHash, touch);
    }
    await touch;
  }

  return {
    async authenticate(token, request) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        return refuse(request, 'malformed access token');
      }
      return authenticateHash(hashApiToken(token), request);
    },

    authenticateHash,

    async getUser(principal) {
      if (principal.token && principal.token.kind !== 'personal') {
        return { login: principal.login, name: principal.token.description || principal.login, admin: false, createdAt: 0, orgs: [...principal.orgs] };
      }
      const user = await identity.getUser(principal.login);
      const orgs = await orgsOf(principal.login);
      return { ...user, orgs: orgs.map((org) => org.name) };
    },

    async defaultOrg(principal) {
      // Team and organization tokens work in their organization: unqualified stack names land there.
      return principal.token?.org ?? principal.login;
    },

    // The identity store lists organizations per user only, so administrators too see the organizations they
    // belong to; that is also the set of organizations whose stacks they can reach.
    async listOrgs(principal) {
      if (principal.token && principal.token.kind !== 'personal') return principal.orgs.map((name) => ({ name, role: 'member' as const }));
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
      const spec = { org: '', event: 'user.created', target: login, description: `created user ${login}${request.admin ? ' (administrator)' : ''}` } as const;
      return audited(deps, principal, spec, async () => {
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
      });
    },

    async createOrg(principal, name) {
      requireAdmin(principal);
      const org = validateOrgName(name);
      await audited(deps, principal, { org, event: 'org.created', target: org, description: `created organization ${org}` }, async () => {
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
      });
    },

    async addMember(principal, org, login, role) {
      validateOrgName(org);
      validateLogin(login);
      validateRole(role);
      requireOrgAction(principal, org, 'manage-members');
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
      const spec = { org, event: 'member.added', target: login, description: `added ${login} to ${org} as ${role}` } as const;
      await audited(deps, principal, spec, () =>
        identity.addMember({ org, login, role }).catch((error: unknown) => {
          if (error instanceof ConflictError) {
            throw new ConflictError(`'${login}' is already a member of '${org}'.`, { org, login }, { cause: error });
          }
          throw error;
        }),
      );
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
        kind: 'personal',
        createdBy: principal.login,
      };
      const spec = { org: login, event: 'token.created', target: `token ${record.id}`, description: `created personal token ${record.id} of ${login}` } as const;
      await audited(deps, principal, spec, () => identity.putToken(record));
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
      const spec = { org: owner, event: 'token.revoked', target: `token ${id}`, description: `revoked personal token ${id} of ${owner}` } as const;
      await audited(deps, principal, spec, () =>
        identity.revokeToken(owner, id).catch((error: unknown) => {
          if (error instanceof NotFoundError || error instanceof InvalidInputError) {
            throw new NotFoundError(`Token '${id}' not found for '${owner}': list the tokens to see their ids.`, {
              cause: error,
            });
          }
          throw error;
        }),
      );
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

export function validateRole(role: unknown): OrgRole {
  if (!ORG_ROLES.includes(role as OrgRole)) {
    throw new InvalidInputError(`Unknown role '${String(role).slice(0, 40)}': use ${ORG_ROLES.map((r) => `'${r}'`).join(', ')}.`);
  }
  return role as OrgRole;
}

/** Logins name the user's personal organization, so they follow the organization name rules. */
export function validateLogin(login: unknown): string {
  if (typeof login !== 'string' || !/^[a-zA-Z0-9][a-zA-Z0-9-_]{1,38}[a-zA-Z0-9]$/.test(login)) {
    throw new InvalidInputError(
      `Invalid login '${String(login).slice(0, 60)}': a login names the user's personal organization, so it must be ` +
        `3 to 40 letters, digits, hyphens or underscores, starting and ending with a letter or digit.`,
    );
  }
  return login;
}

export function optionalText(value: unknown, what: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) {
    throw new InvalidInputError(`The ${what} must be text of at most ${max} characters.`);
  }
  return value;
}

function userNotFound(login: string): NotFoundError {
  return new NotFoundError(`User '${login}' not found: create the user first.`);
}

function unknownAsInvalid(error: unknown): never {
  if (error instanceof NotFoundError || error instanceof InvalidInputError) throw new UnauthorizedError(INVALID_TOKEN);
  throw error;
}

function ignoreConflict(error: unknown): void {
  if (!(error instanceof ConflictError)) throw error;
}
