import { ConflictError, NotFoundError, PermissionDeniedError } from '../errors.js';
import { formatStackRef, validateOrgName, validateStackRef, type StackRef } from '../names.js';
import type { OrgRole } from '../../ports/identity-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from './deps.js';
import {
  allows,
  ORG_ACTIONS,
  STACK_ACTIONS,
  strongest,
  teamSubject,
  userSubject,
  type DefaultStackPermission,
  type OrgAction,
  type StackAction,
  type StackPermission,
} from './permissions.js';
import type { Principal } from './principal.js';

/**
 * Who may do what, by the table in permissions.ts. Organization membership is the first gate: anything outside the
 * principal's organizations is reported as not found, so names cannot be probed. Within an organization, a stack
 * the caller may not even read is also not found; one it may read but not change is forbidden (403) with the
 * permission it would take. Site administrators manage users and organizations, never other organizations' stacks.
 */

/** Members' permission on stacks they were given nothing on, when the organization has not set one. */
export const DEFAULT_MEMBER_PERMISSION: DefaultStackPermission = 'write';

export function isMember(principal: Principal, org: string): boolean {
  return principal.orgs.includes(org);
}

/** `NotFoundError` unless the principal belongs to `org`. */
export function requireMember(principal: Principal, org: string): void {
  validateOrgName(org);
  if (!isMember(principal, org)) {
    throw new NotFoundError(
      `Organization '${org}' not found: you can only use organizations you belong to; ask an administrator of ` +
        `'${org}' to add you.`,
    );
  }
}

/** `ForbiddenError` unless the principal is an administrator. */
export function requireAdmin(principal: Principal): void {
  if (!principal.admin) {
    throw new PermissionDeniedError(
      `Only administrators may do this, and '${principal.login}' is not one: ask an administrator.`,
      '',
      'administer',
    );
  }
}

export function stackNotFound(ref: StackRef): NotFoundError {
  return new NotFoundError(`Stack '${formatStackRef(ref)}' not found: run 'stackyard stack ls' to see your stacks.`);
}

/**
 * Validates the reference, checks membership, reads the stack (strongly consistent), then checks that the caller's
 * permission on it covers `action`.
 */
export async function loadStack(deps: ServiceDeps, principal: Principal, ref: StackRef, action: StackAction): Promise<StackRecord> {
  const valid = validateStackRef(ref);
  if (!isMember(principal, valid.org)) throw stackNotFound(valid);
  let stack: StackRecord;
  try {
    stack = await deps.storage.stacks.get(valid);
  } catch (error) {
    if (error instanceof NotFoundError) throw stackNotFound(valid);
    throw error;
  }
  requireStackPermission(principal, stack, await stackPermission(deps, principal, stack), action);
  return stack;
}

/**
 * What a run's deployment token may do on its one stack: what `preview`, `up`, `refresh`, `destroy` and `cancel` of
 * the bundled CLI need (read the stack and its state, open and seal its secrets, run and cancel updates), and read its
 * deployments' logs. Everything else (settings, permissions, tags, hooks, import, rollback, delete) is refused.
 */
const DEPLOYMENT_TOKEN_ACTIONS: ReadonlySet<StackAction> = new Set<StackAction>([
  'view',
  'export',
  'history',
  'encrypt',
  'decrypt',
  'update',
  'cancel',
  'read-deployments',
]);

/** `NotFoundError` without read permission, `ForbiddenError` naming the permission `action` takes otherwise. */
export function requireStackPermission(
  principal: Principal,
  stack: StackRef,
  held: StackPermission | undefined,
  action: StackAction,
): void {
  const needed = STACK_ACTIONS[action];
  if (!allows(held, 'read')) throw stackNotFound(stack);
  if (principal.token?.kind === 'deployment' && !DEPLOYMENT_TOKEN_ACTIONS.has(action)) {
    throw new PermissionDeniedError(
      `A deployment's token may only run the operations of its run on stack '${formatStackRef(stack)}', not ${action}: ` +
        'use a personal token for anything else.',
      stack.org,
      `${action} ${formatStackRef(stack)}`,
    );
  }
  if (!allows(held, needed)) {
    throw new PermissionDeniedError(
      `${callerName(principal)} has '${held}' permission on stack '${formatStackRef(stack)}', and ${action} needs ` +
        `'${needed}': ask an administrator of '${stack.org}' for '${needed}' on this stack.`,
      stack.org,
      `${action} ${formatStackRef(stack)}`,
    );
  }
}

/**
 * The caller's permission on a stack:
 * - organization token: `admin` on every stack of its organization;
 * - team token: what the stack grants that team (or `admin` if the team created it), nothing else;
 * - organization admin: `admin`; viewer: `read`;
 * - member: the strongest of the organization's default, the stack's grant to the user and to the user's teams,
 *   and `admin` on stacks the user created.
 */
export async function stackPermission(
  deps: ServiceDeps,
  principal: Principal,
  stack: StackRecord,
  memo: OrgFacts = new Map(),
): Promise<StackPermission | undefined> {
  if (!isMember(principal, stack.org)) return undefined;
  const grants = stack.grants ?? {};
  const token = principal.token;
  if (token?.kind === 'organization') return token.org === stack.org ? 'admin' : undefined;
  if (token?.kind === 'deployment') return token.stackId === stack.id ? 'write' : undefined;
  if (token?.kind === 'team') {
    if (token.org !== stack.org || token.team === undefined) return undefined;
    const subject = teamSubject(token.team);
    return stack.createdBy === subject ? 'admin' : grants[subject];
  }
  const role = principal.roles[stack.org];
  if (role === 'admin') return 'admin';
  if (role === 'viewer') return 'read';
  if (role !== 'member') return undefined;
  const subject = userSubject(principal.login);
  if (stack.createdBy === subject) return 'admin';
  let held: StackPermission | undefined = grants[subject];
  const fallback = await memoized(memo, `default:${stack.org}`, () => defaultPermission(deps, stack.org));
  if (fallback !== 'none') held = strongest(held, fallback);
  // Teams are read only when the stack grants any team something more than the user already has.
  const teamGrants = Object.entries(grants).filter(([key, permission]) => key.startsWith('team:') && !allows(held, permission));
  if (teamGrants.length > 0) {
    const teams = await memoized(memo, `teams:${stack.org}`, () => deps.storage.identity.listTeams(stack.org));
    const mine = new Set(teams.filter((team) => team.members.includes(principal.login)).map((team) => teamSubject(team.name)));
    for (const [key, permission] of teamGrants) if (mine.has(key as `team:${string}`)) held = strongest(held, permission);
  }
  return held;
}

/** Per-request memo of organization facts (default permission, teams), so listing many stacks reads them once. */
export type OrgFacts = Map<string, Promise<unknown>>;

function memoized<T>(memo: OrgFacts, key: string, load: () => Promise<T>): Promise<T> {
  let value = memo.get(key) as Promise<T> | undefined;
  if (!value) {
    value = load();
    memo.set(key, value);
  }
  return value;
}

async function defaultPermission(deps: ServiceDeps, org: string): Promise<DefaultStackPermission> {
  try {
    return (await deps.storage.identity.getOrg(org)).defaultStackPermission ?? DEFAULT_MEMBER_PERMISSION;
  } catch (error) {
    if (error instanceof NotFoundError) return DEFAULT_MEMBER_PERMISSION;
    throw error;
  }
}

const ROLE_RANK: Record<OrgRole, number> = { viewer: 1, member: 2, admin: 3 };

/**
 * Organization-level actions (ORG_ACTIONS): 404 outside the organization, 403 with the role it takes otherwise.
 * Team and organization tokens may list and create stacks of their organization and nothing else organization-wide;
 * site administrators may manage members, teams, tokens and settings of any organization.
 */
export function requireOrgAction(principal: Principal, org: string, action: OrgAction): void {
  validateOrgName(org);
  const needed = ORG_ACTIONS[action];
  const siteAdminMay = action === 'manage-members' || action === 'manage-teams' || action === 'manage-tokens' || action === 'manage-settings';
  if (principal.admin && siteAdminMay && !principal.token?.org) return;
  requireMember(principal, org);
  if (principal.token?.kind === 'deployment') {
    throw new PermissionDeniedError(`A deployment's token cannot ${action.replace(/-/g, ' ')} in '${org}': it acts on its run's stack only.`, org, action);
  }
  if (principal.token?.kind === 'team' || principal.token?.kind === 'organization') {
    if (principal.token.org === org && (action === 'create-stack' || action === 'list-stacks' || action === 'create-environment' || action === 'read-policies')) return;
    throw new PermissionDeniedError(
      `${principal.token.kind === 'organization' ? 'An' : 'A'} ${principal.token.kind} token cannot ${action.replace(/-/g, ' ')} in '${org}': use the personal token of an ` +
        `administrator of '${org}'.`,
      org,
      action,
    );
  }
  const role = principal.roles[org];
  if (role === undefined || ROLE_RANK[role] < ROLE_RANK[needed]) {
    throw new PermissionDeniedError(
      `Only ${needed === 'admin' ? 'administrators' : `${needed}s or above`} of organization '${org}' may ` +
        `${action.replace(/-/g, ' ')}, and ${callerName(principal)} is ${role ? `a ${role}` : 'not one'}: ask an administrator of '${org}'.`,
      org,
      action,
    );
  }
}

/** How a refusal names the caller, quotes included: `'alice'`, or the token for team and organization tokens. */
export function callerName(principal: Principal): string {
  const token = principal.token;
  if (token?.kind === 'team') return `team token '${token.description || token.id}' of team '${token.team}'`;
  if (token?.kind === 'organization') return `organization token '${token.description || token.id}'`;
  if (token?.kind === 'deployment') return `the token of deployment ${token.runId ?? token.id}`;
  return `'${principal.login}'`;
}

/** Stack-changing operations other than the running update itself are refused while an update holds the lease. */
export async function requireNoActiveUpdate(deps: ServiceDeps, stack: StackRecord, action: string): Promise<void> {
  const lease = await deps.storage.leases.current(stack.id);
  if (lease) {
    throw new ConflictError(
      `Cannot ${action} stack '${formatStackRef(stack)}': update ${lease.updateId} by ${lease.holder} is in ` +
        `progress. Wait for it to finish, or run 'stackyard cancel' if it is no longer running, then retry.`,
      { ...lease },
    );
  }
}

/** A conditional write lost against a concurrent change (as opposed to a name collision). */
export function isStaleRevision(error: unknown): error is ConflictError {
  return error instanceof ConflictError && 'expectedRevision' in error.details;
}
