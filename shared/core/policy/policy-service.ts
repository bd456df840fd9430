import type { StackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { allGroups, holdsStack } from './group-records.js';
import { createGroupVerbs } from './group-service.js';
import { createPackVerbs } from './pack-service.js';
import { createResultVerbs } from './policy-results.js';
import { packLocation, packMetadata, type RequiredPolicyView } from './views.js';

/**
 * Policy packs and groups on the service (docs/policy.md, "Packs on the service"): publish, read and delete pack
 * versions; create, change and delete groups; the packs a stack's updates must run; the violations stacks have now.
 */
export type PolicyService = ReturnType<typeof createPackVerbs> &
  ReturnType<typeof createGroupVerbs> &
  ReturnType<typeof createResultVerbs> & {
    /** Pulumi's `GetStackPolicyPacksResponse` for a stack the caller may read. */
    stackPolicyPacks(principal: Principal, ref: StackRef): Promise<{ requiredPolicies: RequiredPolicyView[] }>;
  };

/** The pack versions every group holding the stack enables, once each (Pulumi's `RequiredPolicy` list). */
export async function requiredPolicies(deps: ServiceDeps, stack: StackRecord): Promise<RequiredPolicyView[]> {
  const required = new Map<string, RequiredPolicyView>();
  for (const group of await allGroups(deps, stack.org)) {
    if (!holdsStack(group, stack.id)) continue;
    for (const pack of group.packs) {
      const key = `${pack.name}@${pack.versionTag}`;
      if (!required.has(key)) required.set(key, { ...packMetadata(pack), packLocation: packLocation(deps.options.serviceUrl ?? '', stack.org, pack.name, pack.versionTag) });
    }
  }
  return [...required.values()];
}

export function createPolicyService(deps: ServiceDeps): PolicyService {
  return {
    ...createPackVerbs(deps),
    ...createGroupVerbs(deps),
    ...createResultVerbs(deps),
    async stackPolicyPacks(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'view');
      return { requiredPolicies: await requiredPolicies(deps, stack) };
    },
  };
}
