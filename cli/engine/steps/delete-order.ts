/**
 * The order of deletes: a resource is deleted only after everything that needs it (by dependency, property
 * dependency, parent, provider or deletedWith) and comes later in the state; independent deletes run in parallel.
 */
import type { ResourceState } from '../state/deployment.js';
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

/**
 * Deletes `states` with `deleteOne`, each after its dependents; a state whose dependent could not be deleted is
 * kept. Rejects with the first failure once every delete that could run has run.
 */
export async function runDeletes(states: readonly ResourceState[], position: (s: ResourceState) => number, deleteOne: (s: ResourceState) => Promise<unknown>): Promise<void> {
  if (states.length === 0) return;
  const sorted = [...states].sort((a, b) => position(a) - position(b));
  const dependents = deleteDependents(sorted, position);
  const done = new Map<ResourceState, Promise<unknown>>();
  const run = (s: ResourceState): Promise<unknown> => {
    let p = done.get(s);
    if (!p) {
      p = (async () => {
        const results = await Promise.allSettled((dependents.get(s) ?? []).map(run));
        if (results.some((r) => r.status === 'rejected')) throw new Error('a dependent could not be deleted');
        return deleteOne(s);
      })();
      done.set(s, p);
    }
    return p;
  };
  const results = await Promise.allSettled(sorted.map(run));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
