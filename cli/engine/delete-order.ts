/**
 * The order of deletes: a resource is deleted only after everything that needs it (by dependency, property
 * dependency, parent, provider or deletedWith) and comes later in the state; independent deletes run in parallel.
 */
import type { ResourceState } from './deployment.js';
import { requiredUrns } from './targeting.js';

/**
 * For each state to delete, the states to delete before it. `position` gives a state's place in the stack's
 * state (dependents come after what they need).
 */
export function deleteDependents(states: readonly ResourceState[], position: (s: ResourceState) => number): Map<ResourceState, ResourceState[]> {
  const byUrn = new Map<string, ResourceState[]>();
  for (const s of states) byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
  const dependents = new Map<ResourceState, ResourceState[]>();
  for (const s of states) {
    for (const u of new Set(requiredUrns(s))) {
      for (const needed of byUrn.get(u) ?? []) {
        if (needed === s || position(needed) > position(s)) continue;
        dependents.set(needed, [...(dependents.get(needed) ?? []), s]);
      }
    }
  }
  return dependents;
}
