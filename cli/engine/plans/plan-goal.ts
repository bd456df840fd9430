/**
 * Pulumi's `ResourcePlan.checkGoal` and `checkMissingPlan` (`pkg/resource/deploy/plan.go`): a program's goal must
 * keep every resource option the plan recorded and its inputs within the plan's diff. The messages are Pulumi's.
 */
import type { ResourceState } from '../state/deployment.js';
import type { PropertyMap } from '../resource/properties.js';
import { parseProviderRef } from '../resource/urn.js';
import { checkPlanDiff } from './plan-diff.js';
import { emptyPlanDiff, type PlanGoal, type PlanGoalOptions } from './plan-types.js';

const UNKNOWN_PROVIDER_ID = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** Pulumi's `diffStringSets`: `added a, b; deleted c`, or undefined when the sets are equal. */
function setChange(planned: readonly string[], actual: readonly string[]): string | undefined {
  const a = new Set(planned);
  const b = new Set(actual);
  const adds = [...b].filter((s) => !a.has(s)).sort();
  const deletes = [...a].filter((s) => !b.has(s)).sort();
  if (!adds.length && !deletes.length) return undefined;
  const parts = [adds.length ? `added ${adds.join(', ')}` : '', deletes.length ? `deleted ${deletes.join(', ')}` : ''];
  return parts.filter(Boolean).join('; ');
}

function providerChanged(planned: string | undefined, actual: string | undefined): boolean {
  if ((planned ?? '') === (actual ?? '')) return false;
  if (!planned || !actual) return true;
  const expected = parseProviderRef(planned);
  // a provider whose id was unknown at plan time matches any id of the same provider
  return expected.urn !== parseProviderRef(actual).urn || expected.id !== UNKNOWN_PROVIDER_ID;
}

/** The first option the goal changed against the plan, in Pulumi's order and words. */
function optionChange(plan: PlanGoalOptions, goal: PlanGoalOptions, compareAliases: boolean): string | undefined {
  if (goal.custom !== plan.custom) return `resource kind changed (expected ${plan.custom ? 'custom' : 'component'})`;
  if (providerChanged(plan.provider, goal.provider)) return `provider changed (expected ${plan.provider ?? ''})`;
  if ((goal.parent ?? '') !== (plan.parent ?? '')) return `parent changed (expected ${plan.parent ?? ''})`;
  if (goal.protect !== plan.protect) return `protect changed (expected ${plan.protect})`;
  if (goal.deleteBeforeReplace !== plan.deleteBeforeReplace) return `deleteBeforeReplace changed (expected ${plan.deleteBeforeReplace ?? 'no value'})`;
  if ((goal.id ?? '') !== (plan.id ?? '')) return `importID changed (expected ${plan.id ?? ''})`;
  for (const k of ['create', 'update', 'delete', 'read'] as const) {
    if ((goal.customTimeouts[k] ?? 0) !== (plan.customTimeouts[k] ?? 0)) return `${k} timeout changed (expected ${plan.customTimeouts[k] ?? 0})`;
  }
  const ignore = setChange(plan.ignoreChanges, goal.ignoreChanges);
  if (ignore) return `ignoreChanges changed: ${ignore}`;
  const secrets = setChange(plan.additionalSecretOutputs, goal.additionalSecretOutputs);
  if (secrets) return `additionalSecretOutputs changed: ${secrets}`;
  const deps = setChange(plan.dependencies, goal.dependencies);
  if (deps) return `dependencies changed: ${deps}`;
  const aliases = compareAliases ? setChange(plan.aliases, goal.aliases) : undefined;
  if (aliases) return `aliases changed: ${aliases}`;
  return undefined;
}

/**
 * Checks a program's goal against the plan's goal for its URN (`undefined` goal: the plan expected a delete).
 * Returns Pulumi's reason, or undefined when the goal conforms.
 */
export function checkGoal(planned: PlanGoal | undefined, goal: PlanGoalOptions, oldInputs: PropertyMap | undefined, inputs: PropertyMap, compareAliases = true): string | undefined {
  if (!planned) return 'resource unexpectedly not deleted';
  const option = optionChange(planned, goal, compareAliases);
  if (option) return option;
  const properties = checkPlanDiff(oldInputs, inputs, planned.inputDiff);
  if (properties) return properties;
  // a property unknown in the plan may be unset in the program, so only dependencies the program gives are compared
  for (const [k, urns] of Object.entries(planned.propertyDependencies)) {
    const actual = goal.propertyDependencies[k];
    const change = actual && setChange(urns, actual);
    if (change) return `dependencies for ${k} changed: ${change}`;
  }
  return undefined;
}

/** Pulumi's `checkMissingPlan`: a resource the plan does not list must stay as its old state is. */
export function checkUnplanned(old: ResourceState, goal: PlanGoalOptions, inputs: PropertyMap): string | undefined {
  const planned: PlanGoal = {
    type: old.type,
    name: goal.name,
    custom: old.custom,
    parent: old.parent,
    protect: old.protect === true,
    dependencies: old.dependencies ?? [],
    provider: old.provider,
    propertyDependencies: old.propertyDependencies ?? {},
    ignoreChanges: [],
    additionalSecretOutputs: old.additionalSecretOutputs ?? [],
    aliases: old.aliases ?? [],
    customTimeouts: old.customTimeouts ?? {},
    inputDiff: emptyPlanDiff(),
    outputDiff: emptyPlanDiff(),
  };
  return checkGoal(planned, goal, old.inputs ?? {}, inputs, false);
}
