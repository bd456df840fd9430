import { randomBytes, randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef, validateOrgName, type StackRef } from '../names.js';
import { tokenOwnerKey, type Membership, type OrgRole, type TeamRecord, type TokenRecord } from '../../ports/identity-store.js';
import { audited } from '../audit/audit.js';
import { loadStack, requireOrgAction, stackNotFound } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { API_TOKEN_PREFIX, hashApiToken, optionalText, validateLogin, validateRole } from '../identity/identity-service.js';
import {
  isStackPermission,
  teamSubject,
  userSubject,
  type DefaultStackPermission,
  type StackPermission,
} from '../kernel/permissions.js';
import type { Principal } from '../kernel/principal.js';

const MAX_DESCRIPTION_LENGTH = 200;
const TEAM_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-_]{0,38}[a-zA-Z0-9]$|^[a-zA-Z0-9]$/;

/** Who a stack permission is given to. */
export type GrantTarget = { user: string } | { team: string };

export interface StackGrantView {
  subject: 'user' | 'team';
  name: string;
  permission: StackPermission;
}

/** An organization's or team's token, as listed (never the token itself). */
export interface OrgTokenRequest {
  description: string;
  expiresInMs?: number;
  /** Absent: an organization token. */
  team?: string;
}

/**
 * Organization administration: members and their roles, teams, the members' default stack permission, per-stack
 * grants, and team and organization tokens. Everything here but stack grants needs an organization administrator
 * (permissions.ts, ORG_ACTIONS); stack grants need `admin` on the stack.
 */
export interface AccessService {
  listMembers(principal: Principal, org: string): Promise<Membership[]>;
  setMemberRole(principal: Principal, org: string, login: string, role: OrgRole): Promise<void>;
  removeMember(principal: Principal, org: string, login: string): Promise<void>;
  setDefaultStackPermission(principal: Principal, org: string, permission: DefaultStackPermission): Promise<void>;
  createTeam(principal: Principal, org: string, name: string, description?: string): Promise<TeamRecord>;
  listTeams(principal: Principal, org: string): Promise<TeamRecord[]>;
  deleteTeam(principal: Principal, org: string, name: string): Promise<void>;
  changeTeamMember(principal: Principal, org: string, team: string, login: string, action: 'add' | 'remove'): Promise<void>;
  listStackGrants(principal: Principal, ref: StackRef): Promise<StackGrantView[]>;
  /** `permission: null` removes the grant. */
  setStackGrant(principal: Principal, ref: StackRef, target: GrantTarget, permission: StackPermission | null): Promise<void>;
  createOrgToken(principal: Principal, org: string, request: OrgTokenRequest): Promise<{ token: string; record: TokenRecord }>;
  listOrgTokens(principal: Principal, org: string, team?: string): Promise<TokenRecord[]>;
  revokeOrgToken(principal: Principal, org: string, id: string, team?: string): Promise<void>;
}

export function validateTeamName(name: unknown): string {
  if (typeof name !== 'string' || !TEAM_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid team name '${String(name).slice(0, 60)}': use 1 to 40 letters, digits, hyphens or underscores, starting ` +
        'and ending with a letter or digit.',
    );
  }
  return name;
}

export function createAccessService(deps: ServiceDeps): AccessService {
  const identity = deps.storage.identity;

  async function requireOrg(org: string): Promise<void> {
    await identity.getOrg(validateOrgName(org)).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError(`Organization '${org}' not found: create it first.`, { cause: error });
      throw error;
    });
  }

  async function requireTeam(org: string, name: string): Promise<TeamRecord> {
    return identity.getTeam(org, validateTeamName(name)).catch((error: unknown) => {
      if (error instanceof NotFoundError) {
        throw new NotFoundError(`Team '${name}' not found in '${org}': run 'stackyard team ls' to see the teams.`, { cause: error });
      }
      throw error;
    });
  }

  async function requireMembership(org: string, login: string): Promise<Membership> {
    const found = (await identity.listMemberships(validateLogin(login))).find((m) => m.org === org);
    if (!found) throw new NotFoundError(`'${login}' is not a member of '${org}': add them first with 'stackyard org add-member'.`);
    return found;
  }

  /** An organization keeps at least one administrator, or nobody could manage it again. */
  async function requireOtherAdmin(org: string, login: string): Promise<void> {
    const admins = (await identity.listMembers(org)).filter((m) => m.role === 'admin' && m.login !== login);
    if (admins.length === 0) {
      throw new ConflictError(`'${login}' is the last administrator of '${org}': make another member an administrator first.`);
    }
  }

  function tokenOwner(org: string, team: string | undefined): string {
    return team === undefined ? tokenOwnerKey('organization', org) : tokenOwnerKey('team', org, team);
  }

  return {
    async listMembers(principal, org) {
      requireOrgAction(principal, org, 'manage-members');
      return identity.listMembers(org);
    },

    async setMemberRole(principal, org, login, role) {
      requireOrgAction(principal, org, 'manage-members');
      validateRole(role);
      const current = await requireMembership(org, login);
      if (current.role === role) return;
      if (current.role === 'admin') await requireOtherAdmin(org, login);
      await audited(deps, principal, { org, event: 'member.role-changed', target: login, description: `changed the role of ${login} in ${org} from ${current.role} to ${role}` }, () =>
        identity.setMemberRole(org, login, role),
      );
    },

    async removeMember(principal, org, login) {
      requireOrgAction(principal, org, 'manage-members');
      if (login === org) throw new InvalidInputError(`'${login}' owns its personal organization and cannot leave it.`);
      const current = await requireMembership(org, login);
      if (current.role === 'admin') await requireOtherAdmin(org, login);
      await audited(deps, principal, { org, event: 'member.removed', target: login, description: `removed ${login} from ${org}` }, async () => {
        await identity.removeMember(org, login);
        for (const team of await identity.listTeams(org)) {
          if (team.members.includes(login)) await identity.changeTeamMember(org, team.name, login, 'remove');
        }
      });
    },

    async setDefaultStackPermission(principal, org, permission) {
      requireOrgAction(principal, org, 'manage-settings');
      if (permission !== 'none' && !isStackPermission(permission)) {
        throw new InvalidInputError(`Unknown permission '${String(permission).slice(0, 40)}': use none, read, write or admin.`);
      }
      await requireOrg(org);
      await audited(deps, principal, { org, event: 'org.settings-changed', target: org, description: `set the default stack permission of ${org} members to ${permission}` }, () =>
        identity.setDefaultStackPermission(org, permission),
      );
    },

    async createTeam(principal, org, name, description) {
      requireOrgAction(principal, org, 'manage-teams');
      const team: TeamRecord = {
        org,
        name: validateTeamName(name),
        description: optionalText(description, 'description', MAX_DESCRIPTION_LENGTH) ?? '',
        members: [],
        createdAt: deps.now(),
      };
      await requireOrg(org);
      await audited(deps, principal, { org, event: 'team.created', target: `team ${name}`, description: `created team ${name}` }, () =>
        identity.createTeam(team).catch((error: unknown) => {
          if (error instanceof ConflictError) {
            throw new ConflictError(`Team '${name}' already exists in '${org}': choose another name.`, { team: name }, { cause: error });
          }
          throw error;
        }),
      );
      return team;
    },

    async listTeams(principal, org) {
      requireOrgAction(principal, org, 'manage-teams');
      return identity.listTeams(org);
    },

    async deleteTeam(principal, org, name) {
      requireOrgAction(principal, org, 'manage-teams');
      await requireTeam(org, name);
      await audited(deps, principal, { org, event: 'team.deleted', target: `team ${name}`, description: `deleted team ${name} and its tokens` }, async () => {
        // The team's tokens stop working at once (authentication checks the team), and are removed here too.
        for (const token of await identity.listTokens(tokenOwner(org, name))) {
          await identity.revokeToken(token.login, token.id).catch((error: unknown) => {
            if (!(error instanceof NotFoundError)) throw error;
          });
        }
        await identity.deleteTeam(org, name);
      });
    },

    async changeTeamMember(principal, org, team, login, action) {
      requireOrgAction(principal, org, 'manage-teams');
      if (action !== 'add' && action !== 'remove') throw new InvalidInputError("The member action must be 'add' or 'remove'.");
      await requireTeam(org, team);
      if (action === 'add') await requireMembership(org, login);
      const event = action === 'add' ? 'team.member-added' : 'team.member-removed';
      await audited(deps, principal, { org, event, target: `team ${team}`, description: `${action === 'add' ? 'added' : 'removed'} ${login} ${action === 'add' ? 'to' : 'from'} team ${team}` }, () =>
        identity.changeTeamMember(org, team, validateLogin(login), action),
      );
    },

    async listStackGrants(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'view');
      return Object.entries(stack.grants ?? {}).map(([key, permission]) => {
        const [subject, name] = key.split(':') as ['user' | 'team', string];
        return { subject, name, permission };
      });
    },

    async setStackGrant(principal, ref, target, permission) {
      if (permission !== null && !isStackPermission(permission)) {
        throw new InvalidInputError(`Unknown permission '${String(permission).slice(0, 40)}': use read, write or admin.`);
      }
      if (!target || typeof target !== 'object' || ('user' in target) === ('team' in target)) {
        throw new InvalidInputError('Give exactly one of a user or a team.');
      }
      const stack = await loadStack(deps, principal, ref, 'manage-permissions');
      let subject: `user:${string}` | `team:${string}`;
      if ('user' in target) {
        await requireMembership(stack.org, target.user);
        subject = userSubject(target.user);
      } else {
        await requireTeam(stack.org, target.team);
        subject = teamSubject(target.team);
      }
      const name = formatStackRef(stack);
      const description = `${permission === null ? 'removed the permission of' : `gave '${permission}' to`} ${subject} on ${name}`;
      // One atomic write of this subject's entry: concurrent grants to other subjects neither conflict nor retry.
      await audited(deps, principal, { org: stack.org, event: 'stack.permission-changed', target: name, description }, () =>
        deps.storage.stacks.setGrant(stack.id, subject, permission),
      ).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw stackNotFound(stack);
        throw error;
      });
    },

    async createOrgToken(principal, org, request) {
      requireOrgAction(principal, org, 'manage-tokens');
      const description = optionalText(request.description, 'description', MAX_DESCRIPTION_LENGTH) ?? '';
      const { expiresInMs, team } = request;
      if (expiresInMs !== undefined && (!Number.isSafeInteger(expiresInMs) || expiresInMs <= 0)) {
        throw new InvalidInputError('The token lifetime must be a positive number of milliseconds.');
      }
      await requireOrg(org);
      if (team !== undefined) await requireTeam(org, team);
      const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const now = deps.now();
      const record: TokenRecord = {
        id: randomUUID(),
        tokenHash: hashApiToken(token),
        login: tokenOwner(org, team),
        description,
        createdAt: now,
        ...(expiresInMs !== undefined ? { expiresAt: now + expiresInMs } : {}),
        kind: team === undefined ? 'organization' : 'team',
        org,
        ...(team !== undefined ? { team } : {}),
        createdBy: principal.login,
      };
      const what = team === undefined ? 'organization token' : `token of team ${team}`;
      await audited(deps, principal, { org, event: 'token.created', target: `token ${record.id}`, description: `created ${what} ${record.id}` }, () =>
        identity.putToken(record),
      );
      return { token, record };
    },

    async listOrgTokens(principal, org, team) {
      requireOrgAction(principal, org, 'manage-tokens');
      if (team !== undefined) await requireTeam(org, team);
      return identity.listTokens(tokenOwner(org, team));
    },

    async revokeOrgToken(principal, org, id, team) {
      requireOrgAction(principal, org, 'manage-tokens');
      if (typeof id !== 'string' || id.length === 0) throw new InvalidInputError('Give the id of the token to revoke.');
      const what = team === undefined ? 'organization token' : `token of team ${team}`;
      await audited(deps, principal, { org, event: 'token.revoked', target: `token ${id}`, description: `revoked ${what} ${id}` }, () =>
        identity.revokeToken(tokenOwner(org, team), id)).catch((error: unknown) => {
        if (error instanceof NotFoundError || error instanceof InvalidInputError) {
          throw new NotFoundError(`Token '${id}' not found: list the tokens to see their ids.`, { cause: error });
        }
        throw error;
      });
    },
  };
}
