import { NotFoundError, PermissionDeniedError } from '../errors.js';
import { callerName, isMember } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import {
  allowsEnvironment,
  DEFAULT_MEMBER_ENVIRONMENT_PERMISSION,
  ENVIRONMENT_ACTIONS,
  strongestEnvironment,
  teamSubject,
  userSubject,
  type EnvironmentAction,
  type EnvironmentPermission,
} from '../kernel/permissions.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, validateEnvironmentRef, type EnvironmentRef } from '../names.js';
import type { EnvironmentRecord } from '../../ports/environment-store.js';

/**
 * Who may do what to an environment, as for stacks (kernel/authorization.ts): outside the caller's organizations,
 * and inside them without `read`, an environment is not found, so names cannot be probed; with `read` but less than
 * the action takes, 403 naming the permission.
 */

export function environmentNotFound(ref: EnvironmentRef): NotFoundError {
  return new NotFoundError(`Environment '${formatEnvironmentRef(ref)}' not found: run 'esc env ls' to see your environments.`);
}

/** Validates the reference, reads the environment and checks the caller's permission on it covers `action`. */
export async function loadEnvironment(
  deps: ServiceDeps,
  principal: Principal,
  ref: EnvironmentRef,
  action: EnvironmentAction,
): Promise<EnvironmentRecord> {
  const valid = validateEnvironmentRef(ref);
  if (!isMember(principal, valid.org)) throw environmentNotFound(valid);
  let record: EnvironmentRecord;
  try {
    record = await deps.storage.environments.get(valid);
  } catch (error) {
    if (error instanceof NotFoundError) throw environmentNotFound(valid);
    throw error;
  }
  requireEnvironmentPermission(principal, record, await environmentPermission(deps, principal, record), action);
  return record;
}

/** `NotFoundError` without `read`, `PermissionDeniedError` naming the permission `action` takes otherwise. */
export function requireEnvironmentPermission(
  principal: Principal,
  environment: EnvironmentRef,
  held: EnvironmentPermission | undefined,
  action: EnvironmentAction,
): void {
  const needed = ENVIRONMENT_ACTIONS[action];
  if (!allowsEnvironment(held, 'read')) throw environmentNotFound(environment);
  if (!allowsEnvironment(held, needed)) {
    const name = formatEnvironmentRef(environment);
    throw new PermissionDeniedError(
      `${callerName(principal)} has '${held}' permission on environment '${name}', and ${action} needs '${needed}': ask ` +
        `an administrator of '${environment.org}' for '${needed}' on this environment.`,
      environment.org,
      `${action} environment ${name}`,
    );
  }
}

/**
 * The caller's permission on an environment:
 * - organization token: `admin` on every environment of its organization;
 * - team token: what the environment grants that team (`admin` if the team created it);
 * - organization admin: `admin`; viewer: `read`;
 * - member: the strongest of the members' default (`write`, Pulumi's default), the grants to the user and to the
 *   user's teams, and `admin` on environments the user created.
 */
export async function environmentPermission(
  deps: ServiceDeps,
  principal: Principal,
  environment: EnvironmentRecord,
  teams?: () => Promise<Set<string>>,
): Promise<EnvironmentPermission | undefined> {
  if (!isMember(principal, environment.org)) return undefined;
  const grants = environment.grants ?? {};
  const token = principal.token;
  if (token?.kind === 'organization') return token.org === environment.org ? 'admin' : undefined;
  if (token?.kind === 'deployment') return undefined;
  if (token?.kind === 'team') {
    if (token.org !== environment.org || token.team === undefined) return undefined;
    const subject = teamSubject(token.team);
    return environment.createdBy === subject ? 'admin' : grants[subject];
  }
  const role = principal.roles[environment.org];
  if (role === 'admin') return 'admin';
  if (role === 'viewer') return 'read';
  if (role !== 'member') return undefined;
  if (environment.createdBy === userSubject(principal.login)) return 'admin';
  let held = strongestEnvironment(grants[userSubject(principal.login)], DEFAULT_MEMBER_ENVIRONMENT_PERMISSION);
  // Teams are read only when the environment grants a team more than the user already has.
  const teamGrants = Object.entries(grants).filter(([key, permission]) => key.startsWith('team:') && !allowsEnvironment(held, permission));
  if (teamGrants.length > 0) {
    const mine = await (teams ?? (() => teamsOf(deps, principal, environment.org)))();
    for (const [key, permission] of teamGrants) if (mine.has(key)) held = strongestEnvironment(held, permission);
  }
  return held;
}

/** One page of an organization's environments, keeping those the caller may read. */
export async function readableEnvironments(
  deps: ServiceDeps,
  principal: Principal,
  org: string,
  continuationToken: string | undefined,
): Promise<{ environments: EnvironmentRecord[]; continuationToken?: string }> {
  const page = await deps.storage.environments.list(org, { continuationToken });
  let teams: Promise<Set<string>> | undefined;
  const mine = () => (teams ??= teamsOf(deps, principal, org));
  const environments: EnvironmentRecord[] = [];
  for (const environment of page.environments) {
    if (await environmentPermission(deps, principal, environment, mine)) environments.push(environment);
  }
  return { environments, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) };
}

/** The grant subjects (`team:<name>`) of the teams the caller belongs to in `org`. */
export async function teamsOf(deps: ServiceDeps, principal: Principal, org: string): Promise<Set<string>> {
  const teams = await deps.storage.identity.listTeams(org);
  return new Set(teams.filter((team) => team.members.includes(principal.login)).map((team) => teamSubject(team.name)));
}
