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
  if (!allowsEnvironment(held, 'read') && principal.token?.kind === 'deployment') {
    // A run's token may know what it is refused: its stack's config names the environments it may open.
    const name = formatEnvironmentRef(environment);
    throw new PermissionDeniedError(
      `${callerName(principal)} may open only the environments its stack imports (\`environment:\` in ` +
        `Pulumi.<stack>.yaml when the run cloned its source) that '${principal.login}' may open, and '${name}' is not one of them.`,
      environment.org,
      `${action} environment ${name}`,
    );
  }
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
  if (token?.kind === 'deployment') {
    if (!(await runEnvironments(deps, principal)).has(formatEnvironmentRef(environment))) return undefined;
    return (await requesterMayOpen(deps, principal, environment)) ? 'open' : undefined;
  }
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

/**
 * The environments a deployment run's token may open: those its stack's `Pulumi.<stack>.yaml` imports, as the
 * run's runner declared them once, right after the clone (runner-service.ts `declareEnvironments`), and the stack's
 * remote-configuration environment when it has one. `open`, never
 * `write`: the run evaluates them, as Pulumi Deployments opens a stack's environments for its run.
 */
async function runEnvironments(deps: ServiceDeps, principal: Principal): Promise<Set<string>> {
  const token = principal.token;
  if (!token?.runId || !token.stackId) return new Set();
  const run = await deps.storage.deployments.getRun(token.stackId, token.runId);
  const names = new Set(run?.environments ?? []);
  // A stack with remote configuration (`stack init --remote-config`) reads it from its own environment instead.
  const stack = await deps.storage.stacks.getById(token.stackId).catch(() => undefined);
  if (run && stack?.configEnvironment) names.add(`${run.org}/${stack.configEnvironment}`);
  return names;
}

/**
 * Whether the user a run acts as (who queued it, or who set up the schedule or webhook that did) may open
 * `environment` themselves: a run's token never opens more than its user could, whatever the stack's config names.
 */
export async function requesterMayOpen(deps: ServiceDeps, principal: Principal, environment: EnvironmentRecord): Promise<boolean> {
  const membership = (await deps.storage.identity.listMemberships(principal.login)).find((m) => m.org === environment.org);
  if (!membership) return false;
  const requester: Principal = { login: principal.login, orgs: [environment.org], admin: false, roles: { [environment.org]: membership.role } };
  return allowsEnvironment(await environmentPermission(deps, requester, environment), 'open');
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
