/**
 * Applies the step the generator chose for a custom resource (Pulumi's `Apply` of `SameStep`, `CreateStep`,
 * `UpdateStep` and `ReplaceStep` in `step.go`): calls the provider, records the resulting state, and keeps a
 * pending operation in the snapshot while a create or update is under way, so a killed run leaves a trace.
 */
import type { DetailedDiff } from '../display/events.js';
import type { ResourceState } from '../state/deployment.js';
import { ResourceInitError } from '../plugins/providers/provider-client.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import { markSecretOutputs, type PropertyMap } from '../resource/properties.js';
import type { DeleteSteps } from './delete-steps.js';
import type { HookArgs } from './hook-types.js';
import { dependentReplacementRefusal, replacementRefusal } from './protection.js';
import type { ReplacementPlanner } from './replacement.js';
import type { RunLedger } from './run-ledger.js';
import { importedReplacementRefusal, proposedState, type StepDecision } from './step-generator.js';
import { planSteps, replacementOps } from './plan-hooks.js';
import { ShuttingDownError, type PendingStart, type RegisterGoal, type RegisterResult, type RunContext } from './step-types.js';

/** Where a step's resource comes from: the program's goal, its URN and its provider (reference and client). */
export interface StepTarget {
  goal: RegisterGoal;
  urn: string;
  ref: string;
  provider: Provider;
}

/** Applies same, create, update and replace steps. */
export class StepApplier {
  constructor(
    private readonly ctx: RunContext,
    private readonly ledger: RunLedger,
    private readonly planner: ReplacementPlanner,
    private readonly deletes: DeleteSteps,
  ) {}

  /** Keeps the resource as it is, with the program's inputs recorded. */
  same({ goal, urn, ref }: Omit<StepTarget, 'provider'>, inputs: PropertyMap, old: ResourceState): RegisterResult {
    const outputs = markSecretOutputs(old.outputs ?? {}, goal.additionalSecretOutputs);
    const state = proposedState(goal, urn, { id: old.id, inputs, outputs, provider: ref, created: old.created, modified: old.modified, initErrors: old.initErrors });
    planSteps(this.ctx, urn, ['same']);
    this.ctx.options.plan?.state(urn, outputs);
    this.ctx.emit('same', urn, goal.type, 'start', { old, new: state });
    this.ledger.record(urn, state, old);
    this.ctx.emit('same', urn, goal.type, 'done', { old, new: state });
    return { urn, id: old.id ?? '', outputs, result: 'success' };
  }

  /**
   * Creates a resource. For a create-before-delete replacement (`replacing`), the old state is marked for deletion
   * only once the new resource exists (Pulumi's `CreateStep.Apply`), so a failed create leaves it live.
   */
  async create(
    { goal, urn, ref, provider }: StepTarget,
    inputs: PropertyMap,
    op: 'create' | 'create-replacement',
    supersedes?: ResourceState,
    replacing?: ResourceState,
  ): Promise<RegisterResult> {
    const ctx = this.ctx;
    ctx.assertRunning();
    const now = new Date().toISOString();
    const pendingState = proposedState(goal, urn, { inputs, provider: ref });
    if (op === 'create') planSteps(ctx, urn, ['create']);
    ctx.emit(op, urn, goal.type, 'start', { new: pendingState });
    const start: PendingStart | undefined = ctx.preview ? undefined : { resource: pendingState, type: 'creating' };
    const hookArgs: HookArgs = { urn, id: '', type: goal.type, newState: pendingState, newInputs: inputs };
    let id: string;
    let outputs: PropertyMap;
    try {
      ({ id, outputs } = await ctx.providerStep(async () => {
        await ctx.hooks.run('BeforeCreate', pendingState, hookArgs);
        return ctx.hooks.withErrorHooks('create', pendingState, hookArgs, () =>
          provider.create({ urn, name: goal.name, type: goal.type }, inputs, ctx.preview, goal.customTimeouts?.create),
        );
      }, start));
    } catch (err) {
      if (err instanceof ResourceInitError && !ctx.preview) {
        const state = proposedState(goal, urn, { id: err.id, inputs, outputs: markSecretOutputs(err.outputs, goal.additionalSecretOutputs), provider: ref, initErrors: err.reasons, created: now, modified: now });
        if (replacing) this.ledger.condemn(replacing);
        this.ledger.record(urn, state, supersedes);
      }
      if (start?.begun) ctx.snapshots.endOp(start.begun);
      await ctx.save();
      if (!(err instanceof ShuttingDownError)) ctx.emit(op, urn, goal.type, 'failed', { error: String(err), new: pendingState });
      throw err;
    }
    if (!ctx.preview && !id) throw new Error('provider returned an empty id from Create');
    outputs = markSecretOutputs(outputs, goal.additionalSecretOutputs);
    const state = proposedState(goal, urn, { id: id || undefined, inputs, outputs, provider: ref, created: now, modified: now });
    if (replacing) this.ledger.condemn(replacing);
    this.ledger.record(urn, state, supersedes);
    if (start?.begun) {
      ctx.snapshots.endOp(start.begun);
      await ctx.save();
    } else if (replacing) {
      await ctx.save();
    }
    await ctx.hooks.after('AfterCreate', state, { ...hookArgs, id, newState: state, newOutputs: outputs });
    ctx.options.plan?.state(urn, outputs);
    ctx.emit(op, urn, goal.type, 'done', { new: state });
    return { urn, id, outputs, result: 'success' };
  }

  /** Updates a resource in place. */
  async update({ goal, urn, ref, provider }: StepTarget, inputs: PropertyMap, old: ResourceState, diffKeys: string[], detailedDiff?: DetailedDiff): Promise<RegisterResult> {
    const ctx = this.ctx;
    ctx.assertRunning();
    const proposed = proposedState(goal, urn, { id: old.id, inputs, outputs: old.outputs, provider: ref, created: old.created, modified: old.modified });
    planSteps(ctx, urn, ['update']);
    const diff = { diffKeys, ...(detailedDiff ? { detailedDiff } : {}) };
    ctx.emit('update', urn, goal.type, 'start', { ...diff, old, new: proposed });
    const start: PendingStart | undefined = ctx.preview ? undefined : { resource: old, type: 'updating' };
    const hookArgs: HookArgs = { urn, id: old.id ?? '', type: goal.type, oldState: old, newState: proposed, newInputs: inputs, oldInputs: old.inputs ?? {}, oldOutputs: old.outputs ?? {} };
    let outputs: PropertyMap;
    try {
      outputs = await ctx.providerStep(async () => {
        await ctx.hooks.run('BeforeUpdate', proposed, hookArgs);
        return ctx.hooks.withErrorHooks('update', proposed, hookArgs, () =>
          provider.update({ urn, name: goal.name, type: goal.type }, old.id ?? '', old.outputs ?? {}, old.inputs ?? {}, inputs, goal.ignoreChanges, ctx.preview, goal.customTimeouts?.update),
        );
      }, start);
    } catch (err) {
      if (start?.begun) ctx.snapshots.endOp(start.begun);
      if (err instanceof ResourceInitError && !ctx.preview) {
        const state = proposedState(goal, urn, { id: old.id, inputs, outputs: err.outputs, provider: ref, initErrors: err.reasons, created: old.created, modified: new Date().toISOString() });
        this.ledger.record(urn, state, old);
      }
      await ctx.save();
      if (!(err instanceof ShuttingDownError)) ctx.emit('update', urn, goal.type, 'failed', { error: String(err), ...diff, old, new: proposed });
      throw err;
    }
    outputs = markSecretOutputs(outputs, goal.additionalSecretOutputs);
    const state = proposedState(goal, urn, { id: old.id, inputs, outputs, provider: ref, created: old.created, modified: new Date().toISOString() });
    this.ledger.record(urn, state, old);
    if (start?.begun) {
      ctx.snapshots.endOp(start.begun);
      await ctx.save();
    }
    await ctx.hooks.after('AfterUpdate', state, { ...hookArgs, newState: state, newOutputs: outputs });
    ctx.options.plan?.state(urn, outputs);
    ctx.emit('update', urn, goal.type, 'done', { ...diff, old, new: state });
    return { urn, id: old.id ?? '', outputs, result: 'success' };
  }

  /**
   * Replaces a resource: create-before-delete (the old state is deleted at the end of the run), or
   * delete-before-replace (the old state and the dependents that must go with it are deleted first).
   */
  async replace(target: StepTarget, inputs: PropertyMap, old: ResourceState, d: Extract<StepDecision, { kind: 'replace' }>): Promise<RegisterResult> {
    const { goal, urn, ref } = target;
    const ctx = this.ctx;
    const refusal = replacementRefusal(urn, old, goal.protect);
    // as Pulumi: an update stops here, before a create-before-delete creates anything; a preview reports the error
    // and still shows the replacement the diff asks for
    if (refusal && !ctx.preview) throw new Error(refusal);
    if (refusal) ctx.fail(urn, new Error(refusal), { keepGoing: true });
    const importRefusal = importedReplacementRefusal(goal, old, inputs, d.replaceKeys);
    if (importRefusal && !ctx.preview) throw new Error(importRefusal);
    if (importRefusal) ctx.events.diag?.({ severity: 'warning', urn, message: importRefusal });
    planSteps(ctx, urn, replacementOps(d.deleteOld, d.deleteBeforeReplace));
    this.planner.replaced.add(urn);
    const proposed = proposedState(goal, urn, { inputs, provider: ref });
    const details = { diffKeys: d.diffKeys, replaceKeys: d.replaceKeys, ...(d.detailedDiff ? { detailedDiff: d.detailedDiff } : {}) };
    ctx.emit('replace', urn, goal.type, 'start', { ...details, old, new: proposed });
    let res: RegisterResult;
    if (!d.deleteOld) {
      // deleted by an earlier delete-before-replace already: only the create is left
      res = await this.create(target, inputs, 'create-replacement', old);
    } else if (d.deleteBeforeReplace) {
      const dependents = await this.planner.plan(old);
      const blocked = dependentReplacementRefusal(urn, dependents);
      if (blocked) throw new Error(blocked);
      for (const dep of dependents) planSteps(ctx, dep.state.urn, ['delete-replaced']);
      for (const dep of dependents.reverse()) await this.deletes.forReplacement(dep.state, true);
      const deleted = await this.deletes.forReplacement(old, false);
      res = await this.create(target, inputs, 'create-replacement', deleted);
    } else {
      res = await this.create(target, inputs, 'create-replacement', undefined, old);
    }
    ctx.emit('replace', urn, goal.type, 'done', { ...details, old, new: this.ledger.registered.get(urn) ?? proposed });
    return res;
  }
}
