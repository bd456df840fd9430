/**
 * Step generation for a registered custom resource, as Pulumi's `generateSteps`/`generateStepsFromDiff` decide it:
 * given the old state, the provider's diff and the run's constraints, which step to take (same, update, replace
 * create-before-delete or delete-before-replace). Pure: the executor runs what this decides.
 */
import type { ResourceState } from './deployment.js';
import type { DiffResult } from './provider-client.js';
import { changedKeys, parsePropertyPath, type PropertyMap } from './properties.js';
import type { RegisterGoal } from './step-types.js';
import { parseProviderRef } from './urn.js';

/** What to do with a registration that has an old state. */
export type StepDecision =
  | { kind: 'same' }
  | { kind: 'update'; diffKeys: string[] }
  | { kind: 'replace'; diffKeys: string[]; replaceKeys: string[]; deleteBeforeReplace: boolean; deleteOld: boolean };

/**
 * Why a resource is replaced whatever its diff says: `--replace`, a `taint` left in the state, or a replacement
 * an earlier run began (the old one is already deleted: `pendingReplacement`).
 */
export function forcedReplacement(old: ResourceState, replaceTarget: boolean): boolean {
  return replaceTarget || old.taint === true || old.pendingReplacement === true;
}

/**
 * The diff of a resource replaced because the resource it is deleted with is replaced this run (Pulumi's
 * `stepGenerator.diff`): it must go too, whatever its own inputs say, so the provider is not asked.
 */
export function replacedWith(goal: RegisterGoal, replaced: ReadonlySet<string>): DiffResult | undefined {
  if (!goal.deletedWith || !replaced.has(goal.deletedWith)) return undefined;
  return { changes: 'some', changedKeys: [], replaces: ['deletedWith'], deleteBeforeReplace: false };
}

/** Normalizes a provider diff: an unknown answer is decided by comparing inputs, as Pulumi does. */
export function normalizeDiff(diff: DiffResult, oldInputs: PropertyMap, newInputs: PropertyMap): DiffResult {
  if (diff.changes !== 'unknown') return diff;
  const keys = changedKeys(oldInputs, newInputs);
  return { changes: keys.length ? 'some' : 'none', changedKeys: keys, replaces: diff.replaces, deleteBeforeReplace: diff.deleteBeforeReplace };
}

/**
 * Decides the step for `goal` against `old`. `diff` is the provider's (normalized) answer, absent when the
 * replacement is forced; `providerRef` is the provider the new state will use.
 */
export function decideStep(goal: RegisterGoal, old: ResourceState, inputs: PropertyMap, providerRef: string, diff: DiffResult | undefined): StepDecision {
  const deleteOld = !old.pendingReplacement;
  if (!diff) {
    return { kind: 'replace', diffKeys: [], replaceKeys: ['id'], deleteBeforeReplace: goal.deleteBeforeReplace === true, deleteOld };
  }
  const replaceKeys = new Set(diff.replaces);
  if (goal.replaceOnChanges.length) {
    const changed = diff.changedKeys.length ? diff.changedKeys : changedKeys(old.inputs ?? {}, inputs);
    for (const k of changed) if (matchesAny(k, goal.replaceOnChanges)) replaceKeys.add(k);
  }
  if (old.provider && parseProviderRef(old.provider).urn !== parseProviderRef(providerRef).urn) replaceKeys.add('provider');
  if (replaceKeys.size > 0) {
    const deleteBeforeReplace = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace ?? false;
    return { kind: 'replace', diffKeys: diff.changedKeys, replaceKeys: [...replaceKeys], deleteBeforeReplace, deleteOld };
  }
  if (diff.changes === 'none') return { kind: 'same' };
  return { kind: 'update', diffKeys: diff.changedKeys };
}

/** True when a changed top-level key is covered by one of the `replaceOnChanges` paths. */
function matchesAny(key: string, paths: readonly string[]): boolean {
  return paths.some((p) => {
    const first = parsePropertyPath(p)[0];
    return first === '*' || first === key;
  });
}
