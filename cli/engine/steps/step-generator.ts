/**
 * Step generation for a registered custom resource, as Pulumi's `generateSteps`/`generateStepsFromDiff` decide it:
 * given the old state, the provider's diff and the run's constraints, which step to take (same, update, replace
 * create-before-delete or delete-before-replace), and the state a registration proposes. Pure: the executor runs
 * what this decides.
 */
import type { ResourceState } from '../state/deployment.js';
import { maskSecrets } from '../display/engine-events.js';
import type { DetailedDiff } from '../display/events.js';
import type { DiffResult } from '../plugins/providers/provider-client.js';
import { changedKeys, changedPaths, parsePropertyPath, type PropertyMap } from '../resource/properties.js';
import type { RegisterGoal } from './step-types.js';
import { parseProviderRef } from '../resource/urn.js';

/** What to do with a registration that has an old state. */
export type StepDecision =
  | { kind: 'same' }
  | { kind: 'update'; diffKeys: string[]; detailedDiff?: DetailedDiff }
  | { kind: 'replace'; diffKeys: string[]; replaceKeys: string[]; deleteBeforeReplace: boolean; deleteOld: boolean; detailedDiff?: DetailedDiff };

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

/** A provider diff ready for a decision; `paths` are the changed input paths of an answer the engine worked out. */
export type NormalizedDiff = DiffResult & { paths?: string[] };

/**
 * Normalizes a provider diff: an unknown answer is decided by comparing inputs, as Pulumi does, which also gives
 * the changed paths (Pulumi's detailed diff of the object diff) that `replaceOnChanges` is matched against.
 */
export function normalizeDiff(diff: DiffResult, oldInputs: PropertyMap, newInputs: PropertyMap): NormalizedDiff {
  if (diff.changes !== 'unknown') return diff;
  const keys = changedKeys(oldInputs, newInputs);
  const paths = changedPaths(oldInputs, newInputs);
  return { changes: keys.length ? 'some' : 'none', changedKeys: keys, paths, replaces: diff.replaces, deleteBeforeReplace: diff.deleteBeforeReplace };
}

/**
 * Decides the step for `goal` against `old`. `diff` is the provider's (normalized) answer, absent when the
 * replacement is forced; `providerRef` is the provider the new state will use; `renamedTo` gives the URN that took
 * over an old URN by alias this run (a provider renamed so is the same provider, as Pulumi's `diffProvider`).
 */
export function decideStep(
  goal: RegisterGoal,
  old: ResourceState,
  inputs: PropertyMap,
  providerRef: string,
  diff: NormalizedDiff | undefined,
  renamedTo: (oldUrn: string) => string | undefined = () => undefined,
): StepDecision {
  const deleteOld = !old.pendingReplacement;
  if (!diff) {
    return { kind: 'replace', diffKeys: [], replaceKeys: ['id'], deleteBeforeReplace: goal.deleteBeforeReplace === true, deleteOld };
  }
  const initErrors = (old.initErrors?.length ?? 0) > 0;
  const replaceKeys = new Set(replaceKeysOf(diff, goal.replaceOnChanges, old.inputs ?? {}, inputs, initErrors));
  if (old.provider && providerMoved(parseProviderRef(old.provider).urn, parseProviderRef(providerRef).urn, renamedTo)) replaceKeys.add('provider');
  if (replaceKeys.size > 0) {
    const deleteBeforeReplace = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace ?? false;
    return { kind: 'replace', diffKeys: diff.changedKeys, replaceKeys: [...replaceKeys], deleteBeforeReplace, deleteOld, ...detailedOf(diff) };
  }
  // a resource that did not finish initializing gets an update even without changes, so its provider can go on
  if (diff.changes === 'none' && !initErrors) return { kind: 'same' };
  return { kind: 'update', diffKeys: diff.changedKeys, ...detailedOf(diff) };
}

/** The provider's detailed diff, carried to the step's events (Pulumi's `StepEventMetadata.DetailedDiff`). */
function detailedOf(diff: NormalizedDiff): { detailedDiff?: DetailedDiff } {
  return diff.detailedDiff ? { detailedDiff: diff.detailedDiff } : {};
}

function providerMoved(oldUrn: string, newUrn: string, renamedTo: (oldUrn: string) => string | undefined): boolean {
  return oldUrn !== newUrn && renamedTo(oldUrn) !== newUrn;
}

/**
 * The keys a diff replaces on, with `replaceOnChanges` applied as Pulumi's `applyReplaceOnChanges` does: only a
 * diff with changes, and a changed path replaces when a `replaceOnChanges` path contains it (`a` contains `a.b`,
 * `a.b` does not contain `a`). A provider that says "changed" but names no key gets the changed input paths
 * instead of no replacement at all: a deliberate difference (docs/cli.md). `initErrors`: the old state did not
 * finish initializing.
 */
export function replaceKeysOf(diff: NormalizedDiff, replaceOnChanges: readonly string[], oldInputs: PropertyMap, newInputs: PropertyMap, initErrors = false): string[] {
  const keys = new Set(diff.replaces);
  if (replaceOnChanges.length && diff.changes === 'some') {
    const changed = diff.paths ?? (diff.changedKeys.length ? diff.changedKeys : changedPaths(oldInputs, newInputs));
    for (const p of changed) if (replaceOnChanges.some((pattern) => pathContains(pattern, p))) keys.add(p);
  }
  // Pulumi's special key: a replaceOnChanges path covering it (`*`) replaces a resource left with init errors
  if (initErrors && replaceOnChanges.some((pattern) => pathContains(pattern, INIT_ERROR_KEY))) keys.add(INIT_ERROR_KEY);
  return [...keys];
}

const INIT_ERROR_KEY = '#initerror';

/**
 * Pulumi's refusal to replace a resource whose program still gives the `import` option: the replacement would
 * change the id the program names. Lists each replacing key as `key: old => new`, secrets masked.
 */
export function importedReplacementRefusal(goal: RegisterGoal, old: ResourceState, inputs: PropertyMap, replaceKeys: readonly string[]): string | undefined {
  if (!goal.importId) return undefined;
  const shown = (v: PropertyMap[string] | undefined) => (v === undefined ? 'undefined' : JSON.stringify(maskSecrets(v)));
  const lines = replaceKeys.map((k) => `${k}: ${shown(old.inputs?.[k])} => ${shown(inputs[k])}`);
  return ['previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;', ...lines].join('\n');
}

/** Pulumi's `PropertyPath.Contains`: `path` lies at or under `pattern` (`*` matching any one element). */
export function pathContains(pattern: string, path: string): boolean {
  const want = parsePropertyPath(pattern);
  const got = parsePropertyPath(path);
  if (got.length < want.length) return false;
  return want.every((seg, i) => seg === '*' || seg === got[i]);
}

/** The state a registration proposes: the program's goal with `extra` (id, inputs, outputs, provider, times…). */
export function proposedState(goal: RegisterGoal, urn: string, extra: Partial<ResourceState>): ResourceState {
  return {
    urn,
    custom: goal.custom,
    type: goal.type,
    ...extra,
    parent: goal.parent || undefined,
    protect: goal.protect || undefined,
    dependencies: goal.dependencies.length ? [...goal.dependencies] : undefined,
    propertyDependencies: Object.keys(goal.propertyDependencies).length ? goal.propertyDependencies : undefined,
    additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
    aliases: goal.aliasUrns.length ? goal.aliasUrns : undefined,
    customTimeouts: goal.customTimeouts,
    retainOnDelete: goal.retainOnDelete || undefined,
    deletedWith: goal.deletedWith || undefined,
    importID: goal.importId || undefined,
    ignoreChanges: goal.ignoreChanges.length ? goal.ignoreChanges : undefined,
    replaceOnChanges: goal.replaceOnChanges.length ? goal.replaceOnChanges : undefined,
    sourcePosition: goal.sourcePosition || undefined,
    resourceHooks: goal.hooks && Object.keys(goal.hooks).length ? goal.hooks : undefined,
  };
}
