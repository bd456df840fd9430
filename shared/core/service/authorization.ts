import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { formatStackRef, validateOrgName, validateStackRef, type StackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from './create-services.js';
import type { Principal } from './types.js';

/**
 * Who may do what. Organization membership gives access to an organization's stacks; administrator status gives
 * access to the admin operations (users, organizations, other users' tokens) but not to stacks of organizations the
 * administrator does not belong to. Anything outside the principal's organizations is reported as not found, so
 * names cannot be probed.
 */

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
    throw new ForbiddenError(
      `Only administrators may do this, and '${principal.login}' is not one: ask an administrator.`,
    );
  }
}

export function stackNotFound(ref: StackRef): NotFoundError {
  return new NotFoundError(`Stack '${formatStackRef(ref)}' not found: run 'stackyard stack ls' to see your stacks.`);
}

/** Validates the reference, checks membership, then reads the stack (strongly consistent). */
export async function loadStack(deps: ServiceDeps, principal: Principal, ref: StackRef): Promise<StackRecord> {
  const valid = validateStackRef(ref);
  if (!isMember(principal, valid.org)) throw stackNotFound(valid);
  try {
    return await deps.storage.stacks.get(valid);
  } catch (error) {
    if (error instanceof NotFoundError) throw stackNotFound(valid);
    throw error;
  }
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
