/**
 * One run's plan: constraining an update to a plan (Pulumi's checks in `validateSteps`, `generateSteps`,
 * `GenerateDeletes` and the step executor's outputs check) and recording the plan of a preview (`--save-plan`).
 * The step generator consults it before a step is performed, so an operation outside the plan never starts.
 */
import type { ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import type { PropertyMap } from '../resource/properties.js';
import { checkPlanDiff, planDiffOf } from './plan-diff.js';
import { checkGoal, checkUnplanned } from './plan-goal.js';
import { emptyPlanDiff, type DeploymentPlan, type PlanGoalOptions, type ResourcePlan } from './plan-types.js';

/** An operation or goal outside the plan: the step is not performed and the run fails with this message. */
export class PlanViolation extends Error {
  override readonly name = 'PlanViolation';
}

/** Pulumi's `ConstrainedTo`: the operations a planned operation allows. */
export function constrainedTo(op: StepOp, planned: StepOp): boolean {
  switch (planned) {
    case 'create':
      return op === 'same' || op === 'create';
    case 'update':
      return op === 'same' || op === 'update';
    case 'replace':
    case 'create-replacement':
    case 'delete-replaced':
      return op === 'same' || op === 'update' || op === planned;
    default:
      return op === planned;
  }
}

/** The plan a run keeps to (`constraint`) and the plan it records (`recording`); either may be absent. */
export class PlanRun {
  /** The plan being recorded by a preview with `--save-plan`. */
  readonly recorded?: Map<string, ResourcePlan>;
  /** The operations each planned resource has left; consumed as steps are taken. */
  private readonly remaining = new Map<string, StepOp[]>();

  constructor(
    private readonly constraint: DeploymentPlan | undefined,
    record: boolean,
  ) {
    if (record) this.recorded = new Map();
    for (const [urn, rp] of constraint?.resourcePlans ?? []) this.remaining.set(urn, [...rp.ops]);
  }

  /** True when the run is constrained to a plan or records one. */
  get active(): boolean {
    return this.constraint !== undefined || this.recorded !== undefined;
  }

  /** The seed Check gets for `urn`: the plan's, so a provider's random choices repeat what the preview saw. */
  seed(urn: string): Buffer | undefined {
    const seed = this.constraint?.resourcePlans.get(urn)?.seed;
    return seed ? Buffer.from(seed, 'base64') : undefined;
  }

  /**
   * A registration's goal, before its step is decided: checked against the plan (Pulumi's `checkGoal`, or
   * `checkMissingPlan` for a resource the plan does not list) and recorded. `oldInputs` is absent for a new resource.
   */
  goal(urn: string, goal: PlanGoalOptions, old: ResourceState | undefined, inputs: PropertyMap, seed?: Buffer): void {
    const oldInputs = old ? (old.inputs ?? {}) : undefined;
    if (this.recorded) {
      const prior = this.recorded.get(urn);
      this.recorded.set(urn, {
        ops: prior?.ops ?? [],
        goal: { ...goal, inputDiff: planDiffOf(oldInputs, inputs), outputDiff: emptyPlanDiff() },
        seed: seed?.toString('base64'),
      });
    }
    if (!this.constraint) return;
    const planned = this.constraint.resourcePlans.get(urn);
    let reason: string | undefined;
    if (planned) reason = checkGoal(planned.goal, goal, oldInputs, inputs, planned.goal?.aliases !== undefined);
    // a resource the plan does not know that is new fails at its create step
    else if (old) reason = checkUnplanned(old, goal, inputs);
    if (reason) throw new PlanViolation(`resource ${urn} violates plan: ${reason}`);
  }

  /**
   * The operations a resource is about to take, in Pulumi's order (a create-before-delete replacement:
   * `create-replacement`, `replace`; delete-before-replace: `delete-replaced`, `replace`, `create-replacement`),
   * checked before any is performed and recorded.
   */
  steps(urn: string, ops: readonly StepOp[]): void {
    if (this.constraint) {
      for (const op of ops) {
        const left = this.remaining.get(urn);
        if (!left) {
          if (!constrainedTo(op, 'same')) throw new PlanViolation(`${op} is not allowed by the plan: no steps were expected for this resource`);
          continue;
        }
        const planned = left.shift();
        if (planned === undefined) throw new PlanViolation(`${op} is not allowed by the plan: no more steps were expected for this resource`);
        if (!constrainedTo(op, planned)) throw new PlanViolation(`${op} is not allowed by the plan: this resource is constrained to ${planned}`);
      }
    }
    if (this.recorded) {
      const rp = this.recorded.get(urn) ?? { ops: [] };
      rp.ops.push(...ops);
      this.recorded.set(urn, rp);
    }
  }

  /** A resource's registered outputs (components): checked against the plan's output diff and recorded. */
  outputs(urn: string, oldOutputs: PropertyMap | undefined, outputs: PropertyMap): void {
    const rp = this.recorded?.get(urn);
    if (rp?.goal) {
      rp.goal.outputDiff = planDiffOf(oldOutputs, outputs);
      rp.outputs = outputs;
    }
    if (!this.constraint) return;
    const planned = this.constraint.resourcePlans.get(urn);
    if (!planned) throw new PlanViolation(`no plan for resource ${urn}`);
    const reason = planned.goal && checkPlanDiff(oldOutputs, outputs, planned.goal.outputDiff);
    if (reason) throw new PlanViolation(`resource violates plan: ${reason}`);
  }

  /** A step's resulting state, kept as the plan's advisory outputs. */
  state(urn: string, outputs: PropertyMap | undefined): void {
    const rp = this.recorded?.get(urn);
    if (rp && outputs) rp.outputs = outputs;
  }

  /**
   * After a run that succeeded: each planned resource whose operations were not all seen (Pulumi's end-of-run
   * check; a planned delete of a resource no longer in the state was simply not needed).
   */
  unfulfilled(baseUrns: ReadonlySet<string>): string[] {
    const out: string[] = [];
    for (const [urn, left] of this.remaining) {
      if (left.length === 0) continue;
      if (left.length === 1 && left[0] === 'delete' && !baseUrns.has(urn)) continue;
      out.push(`expected resource operations for ${urn} but none were seen`);
    }
    return out;
  }
}
