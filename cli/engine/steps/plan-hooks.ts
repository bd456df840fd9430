/**
 * Where the steps meet a run's plan (`../plans/plan-run.ts`): the program's goal in the plan's terms, and the
 * checks made before a step is performed, so an operation outside the plan fails without starting.
 */
import type { ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import type { PropertyMap } from '../resource/properties.js';
import type { PlanGoalOptions } from '../plans/plan-types.js';
import type { RegisterGoal, RunContext } from './step-types.js';

/** A registration's goal as the plan records it (Pulumi's `NewGoalPlan`). */
export function planGoalOf(goal: RegisterGoal, provider: string | undefined): PlanGoalOptions {
  return {
    type: goal.type,
    name: goal.name,
    custom: goal.custom,
    parent: goal.parent || undefined,
    protect: goal.protect === true,
    dependencies: [...goal.dependencies],
    provider: provider || undefined,
    propertyDependencies: goal.propertyDependencies,
    deleteBeforeReplace: goal.deleteBeforeReplace,
    ignoreChanges: [...goal.ignoreChanges],
    additionalSecretOutputs: [...goal.additionalSecretOutputs],
    aliases: [...goal.aliasUrns],
    id: goal.importId || undefined,
    customTimeouts: goal.customTimeouts ?? {},
  };
}

/** Checks (and records) a registration's goal against the run's plan; throws a `PlanViolation`. */
export function planGoal(ctx: RunContext, urn: string, goal: RegisterGoal, provider: string | undefined, old: ResourceState | undefined, inputs: PropertyMap, seed?: Buffer): void {
  ctx.options.plan?.goal(urn, planGoalOf(goal, provider), old, inputs, seed);
}

/** Checks (and records) the operations a resource is about to take; throws a `PlanViolation`. */
export function planSteps(ctx: RunContext, urn: string, ops: readonly StepOp[]): void {
  ctx.options.plan?.steps(urn, ops);
}

/** Pulumi's order of a replacement's operations, for the plan. */
export function replacementOps(deleteOld: boolean, deleteBeforeReplace: boolean): StepOp[] {
  if (!deleteOld) return ['replace', 'create-replacement'];
  return deleteBeforeReplace ? ['delete-replaced', 'replace', 'create-replacement'] : ['create-replacement', 'replace'];
}

/**
 * The end-of-run deletes checked against the plan all at once, before any runs (Pulumi's `GenerateDeletes`): the
 * first violation fails the run and nothing is deleted. False when refused.
 */
export function planDeletes(ctx: RunContext, states: readonly ResourceState[]): boolean {
  if (!ctx.options.plan) return true;
  for (const s of states) {
    try {
      ctx.options.plan.steps(s.urn, [s.delete ? 'delete-replaced' : 'delete']);
    } catch (err) {
      ctx.fail(s.urn, err);
      return false;
    }
  }
  return true;
}
