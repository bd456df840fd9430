import { NotFoundError } from '../errors.js';
import type { PolicyGroupRecord, PolicyPackVersionRecord } from '../../ports/policy-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from '../kernel/deps.js';

/** The group every stack of an organization is in unless removed from it (Pulumi's `apitype.DefaultPolicyGroup`). */
export const DEFAULT_POLICY_GROUP = 'default-policy-group';

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** The default group before anything was written to it: every stack, no packs (revision 0: not stored yet). */
function unwrittenDefault(org: string): PolicyGroupRecord {
  return { org, name: DEFAULT_POLICY_GROUP, isOrgDefault: true, mode: 'preventative', stacks: [], excludedStacks: [], packs: [], modifiedAt: 0, modifiedBy: '', revision: 0 };
}

/** Whether a group name is one the service could store (else it cannot exist: a 404, not a 400, as for any name). */
export function isGroupName(name: string): boolean {
  return GROUP_NAME.test(name);
}

/** A group as stored, the default group even before its first write; `NotFoundError` for any other missing one. */
export async function loadGroup(deps: ServiceDeps, org: string, name: string): Promise<PolicyGroupRecord> {
  const stored = isGroupName(name) ? await deps.storage.policies.getGroup(org, name) : undefined;
  if (stored) return stored;
  if (name === DEFAULT_POLICY_GROUP) return unwrittenDefault(org);
  throw new NotFoundError(`Policy group '${name.slice(0, 100)}' not found in '${org}': list the groups with 'stackyard policy group ls'.`);
}

/** Every group of the organization, the default one first (written or not). */
export async function allGroups(deps: ServiceDeps, org: string): Promise<PolicyGroupRecord[]> {
  const stored = await deps.storage.policies.listGroups(org);
  const fallback = stored.some((g) => g.name === DEFAULT_POLICY_GROUP) ? [] : [unwrittenDefault(org)];
  return [...fallback, ...stored].sort((a, b) => Number(b.isOrgDefault) - Number(a.isOrgDefault) || (a.name < b.name ? -1 : 1));
}

/** Whether the stack is in the group: the default group holds every stack it was not removed from. */
export function holdsStack(group: PolicyGroupRecord, stackId: string): boolean {
  return group.isOrgDefault ? !group.excludedStacks.includes(stackId) : group.stacks.includes(stackId);
}

/** Names of the groups that enable this pack version. */
export async function groupsEnabling(deps: ServiceDeps, org: string, version: Pick<PolicyPackVersionRecord, 'name' | 'versionTag'>): Promise<string[]> {
  const groups = await allGroups(deps, org);
  return groups.filter((g) => g.packs.some((p) => p.name === version.name && p.versionTag === version.versionTag)).map((g) => g.name);
}

/** Every stack of the organization (all pages). */
export async function orgStacks(deps: ServiceDeps, org: string): Promise<StackRecord[]> {
  const stacks: StackRecord[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await deps.storage.stacks.list({ org, limit: 500, ...(continuationToken ? { continuationToken } : {}) });
    stacks.push(...page.stacks);
    continuationToken = page.continuationToken;
  } while (continuationToken);
  return stacks;
}
