/**
 * The program's requests as steps: RegisterResource (components, providers and custom resources: alias matching,
 * `--target`/`--exclude`, import, ignoreChanges, check and diff, then the step the generator decides),
 * RegisterResourceOutputs (and the stack's outputs, settled last), ReadResource and Invoke.
 */
import { randomBytes } from 'node:crypto';
import type { ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import { formatCheckFailures, type ResourceRef } from '../plugins/providers/provider-client.js';
import type { PackageRequest } from '../plugins/providers/parameterized.js';
import { containsUnknowns, deepEqual, markSecretOutputs, resolveOutputValues, type PropertyMap } from '../resource/properties.js';
import { createUrn, isProviderType, STACK_TYPE } from '../resource/urn.js';
import type { AliasResolver } from './aliases.js';
import type { HookArgs } from './hook-types.js';
import { registrationHookArgs } from './resource-hooks.js';
import type { StepApplier } from './apply-steps.js';
import { applyPolicies } from './policy-checks.js';
import { applyIgnoreChanges, invalidIgnoreChangesMessage } from './ignore-changes.js';
import { importResource } from './import-step.js';
import { unknownOutputMessage, withoutUnknowns } from './output-policy.js';
import type { ProviderSteps } from './provider-steps.js';
import type { ReplacementPlanner } from './replacement.js';
import type { RunLedger } from './run-ledger.js';
import { destroyRegistration, refreshRegistration } from './program-modes.js';
import { decideStep, forcedReplacement, normalizeDiff, proposedState, replacedWith } from './step-generator.js';
import { ShuttingDownError, type ReadGoal, type RegisterGoal, type RegisterResult, type RunContext } from './step-types.js';
import { requiredUrns, untargetedDependencyMessage, type Targeting } from './targeting.js';
import { planGoal, planSteps } from './plan-hooks.js';

/** The parts of a run the program's requests go through. */
export interface ProgramRequestParts {
  ledger: RunLedger;
  aliases: AliasResolver;
  targeting: Targeting;
  planner: ReplacementPlanner;
  providers: ProviderSteps;
  applier: StepApplier;
}

/** Turns what the program asks for into steps. */
export class ProgramRequests {
  /** The stack's outputs as the program registered them; finalized once the run's outcome is known. */
  private stackOutputs?: PropertyMap;
  /** Components created or updated this run whose after hooks wait for their outputs, with their hook arguments. */
  private readonly componentSteps = new Map<string, HookArgs>();

  constructor(
    private readonly ctx: RunContext,
    private readonly parts: ProgramRequestParts,
  ) {}

  /** Handles RegisterResource. */
  async register(goal: RegisterGoal): Promise<RegisterResult> {
    const { ctx, parts } = this;
    ctx.assertRunning();
    const urn = createUrn(ctx.options.stack, ctx.options.project, goal.parent, goal.type, goal.name);
    let old: ResourceState | undefined;
    try {
      if (parts.ledger.registeredUrns.has(urn)) throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`);
      parts.ledger.registeredUrns.add(urn);
      if (goal.deleteBeforeReplace !== undefined) parts.ledger.deleteBeforeReplace.set(urn, goal.deleteBeforeReplace);
      old = parts.ledger.claimOld(urn, parts.aliases.aliasesOf(goal, urn));
      if (isProviderType(goal.type)) return await parts.providers.register(goal, urn, old);
      if (!goal.custom) return await this.registerComponent(goal, urn, old);
      return await this.registerCustom(goal, urn, old);
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      const failure = ctx.fail(urn, err);
      if (!ctx.options.continueOnError) throw failure;
      parts.ledger.skipped.add(urn);
      return { urn, id: old?.id ?? '', outputs: old?.outputs ?? {}, result: 'fail' };
    }
  }

  /**
   * Applies `--target`/`--exclude` and `continueOnError` skips to a registration. Returns the answer for a
   * resource left alone, or undefined when it takes part in the run.
   */
  private leftAlone(proposed: ResourceState, old: ResourceState | undefined): RegisterResult | undefined {
    const ledger = this.parts.ledger;
    const urn = proposed.urn;
    const kept = (result: RegisterResult['result']): RegisterResult => {
      if (old) {
        ledger.carry(old);
        if (result === 'success') {
          planSteps(this.ctx, old.urn, ['same']);
          this.ctx.emit('same', old.urn, old.type, 'start', { old, new: old });
          this.ctx.emit('same', old.urn, old.type, 'done', { old, new: old });
        }
      }
      return { urn, id: old?.id ?? '', outputs: old?.outputs ?? {}, result };
    };
    if (requiredUrns(proposed).some((u) => ledger.skipped.has(u))) {
      ledger.skipped.add(urn);
      return kept('skip');
    }
    if (this.parts.targeting.includes(proposed, proposed.type === STACK_TYPE)) {
      const missing = ledger.skippedDependency(proposed);
      if (missing) throw new Error(untargetedDependencyMessage(urn, missing));
      return undefined;
    }
    if (!old) ledger.skippedCreates.add(urn);
    return kept(old ? 'success' : 'skip');
  }

  /** The inputs after the run's policy packs remediated and analyzed them (policy-checks.ts). */
  private policyInputs(goal: RegisterGoal, proposed: ResourceState, inputs: PropertyMap): Promise<PropertyMap> | PropertyMap {
    const packs = this.ctx.options.policies;
    if (!packs) return inputs;
    return applyPolicies(packs, proposed, inputs, { deleteBeforeReplace: goal.deleteBeforeReplace, preview: this.ctx.preview, lookup: (u) => this.parts.ledger.lookup(u) });
  }

  private async registerComponent(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const given = proposedState(goal, urn, { inputs: resolveOutputValues(goal.inputs), outputs: old?.outputs ?? {} });
    const alone = this.leftAlone(given, old);
    if (alone) return { ...alone, id: '', outputs: {} };
    const inputs = await this.policyInputs(goal, given, given.inputs ?? {});
    const state: ResourceState = { ...given, inputs };
    const op: StepOp = !old ? 'create' : deepEqual(old.inputs ?? {}, inputs) ? 'same' : 'update';
    planGoal(this.ctx, urn, goal, undefined, old, inputs);
    planSteps(this.ctx, urn, [op]);
    this.ctx.emit(op, urn, goal.type, 'start', { old, new: state });
    // as Pulumi: a component's before hooks run at its registration, its after hooks once it registers its outputs
    if (op !== 'same') {
      const args = registrationHookArgs(state, old);
      await this.ctx.hooks.run(old ? 'BeforeUpdate' : 'BeforeCreate', state, args);
      this.componentSteps.set(urn, args);
    }
    this.parts.ledger.record(urn, state, old);
    if (op !== 'same') await this.ctx.save();
    this.ctx.emit(op, urn, goal.type, 'done', { old, new: state });
    return { urn, id: '', outputs: {}, result: 'success' };
  }

  private async registerCustom(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const { ctx, parts } = this;
    const { ref, provider } = await parts.providers.providerFor(goal.type, goal.provider, goal.version, goal.pluginDownloadURL, goal.package, urn);
    const proposedWithProvider = proposedState(goal, urn, { provider: ref });
    const alone = this.leftAlone(proposedWithProvider, old);
    if (alone) return alone;
    const mode = ctx.options.programMode;
    if (mode === 'refresh') return refreshRegistration(ctx, parts.ledger, { goal, urn, ref, provider }, old);
    if (mode === 'destroy') return destroyRegistration(parts.applier, parts.ledger, { goal, urn, ref, provider }, old);
    // as Pulumi's generateSteps: the option names a resource already adopted when the state's import id (or, without
    // one, its id) is the same
    if (goal.importId && old && (old.external || (old.importID || old.id) !== goal.importId)) {
      // Pulumi would import the named resource as a replacement of this one; creating it instead would silently
      // make a second resource
      throw new Error(`the \`import\` resource option naming another id than the resource in the state is not supported by stackyard yet; remove it and run again (the resource it names was left untouched)`);
    }
    const imported = goal.importId !== undefined && !old;
    if (imported) {
      old = await importResource(ctx, goal, urn, provider, (extra) => proposedState(goal, urn, { ...extra, provider: ref }), (state) => parts.ledger.record(urn, state));
    }
    const rref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const rawInputs = resolveOutputValues(goal.inputs);
    const forced = old !== undefined && forcedReplacement(old, parts.targeting.isReplaceTarget(urn));
    // a forced replacement starts from the program's inputs alone, as a new resource would
    const olds = old && !forced ? (old.inputs ?? {}) : {};
    const ignored = old && !forced ? applyIgnoreChanges(olds, rawInputs, goal.ignoreChanges) : { inputs: rawInputs, invalidPaths: [] };
    if (ignored.invalidPaths.length) ctx.events.diag?.({ severity: 'info', urn, message: invalidIgnoreChangesMessage(ignored.invalidPaths) });
    const proposed = ignored.inputs;
    const seed = ctx.options.plan?.seed(urn) ?? randomBytes(32);
    const checked = await ctx.slots.admit(() => provider.check(rref, olds, proposed, seed));
    if (checked.failures.length) throw new Error(`Check failed: ${formatCheckFailures(checked.failures)}`);
    const inputs = await this.policyInputs(goal, proposedWithProvider, checked.inputs);
    if (!ctx.preview && containsUnknowns(inputs)) {
      throw new Error(`inputs of ${urn} still hold unknown values outside a preview; refusing to create or update it with them`);
    }
    const target = { goal, urn, ref, provider };
    planGoal(ctx, urn, goal, ref, old, inputs, seed);
    if (!old) return parts.applier.create(target, inputs, 'create');
    const diff = forced
      ? undefined
      : (replacedWith(goal, parts.planner.replaced) ??
        normalizeDiff(await ctx.slots.run(() => provider.diff(rref, old.id ?? '', old.outputs ?? {}, old.inputs ?? {}, inputs, goal.ignoreChanges)), old.inputs ?? {}, inputs));
    const decision = decideStep(goal, old, inputs, ref, diff, (u) => parts.aliases.newUrnOf(u));
    switch (decision.kind) {
      case 'same':
        // as Pulumi: an import the program's inputs agree with is resolved with the imported state, no same step
        return imported ? { urn, id: old.id ?? '', outputs: old.outputs ?? {}, result: 'success' } : parts.applier.same(target, inputs, old);
      case 'update':
        return parts.applier.update(target, inputs, old, decision.diffKeys, decision.detailedDiff);
      case 'replace':
        return parts.applier.replace(target, inputs, old, decision);
    }
  }

  /** Handles RegisterResourceOutputs (components and the stack). */
  async registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    const ledger = this.parts.ledger;
    const cur = ledger.registered.get(urn);
    if (!cur) {
      // an untargeted or skipped component still registers its outputs; there is nothing to record
      if (ledger.skippedCreates.has(urn) || ledger.skipped.has(urn)) return;
      throw new Error(`cannot register outputs of unknown resource ${urn}`);
    }
    if (cur.type === STACK_TYPE) {
      this.stackOutputs = resolveOutputValues(outputs);
      return;
    }
    const resolved = this.knownOutputs(urn, resolveOutputValues(outputs), cur.outputs ?? {}, 'output');
    this.ctx.options.plan?.outputs(urn, cur.outputs, resolved);
    const next: ResourceState = { ...cur, outputs: resolved };
    ledger.replaceRegistered(cur, next);
    this.ctx.events.outputs?.({ urn, type: next.type, state: next });
    if (!deepEqual(cur.outputs, next.outputs)) await this.ctx.save();
    const step = this.componentSteps.get(urn);
    if (step) {
      this.componentSteps.delete(urn);
      await this.ctx.hooks.after(step.oldState ? 'AfterUpdate' : 'AfterCreate', next, { ...step, newState: next, newOutputs: resolved });
    }
  }

  /** Outside previews, outputs with unknown values keep their previous value or are left out, with a warning. */
  private knownOutputs(urn: string, outputs: PropertyMap, previous: PropertyMap, noun: string): PropertyMap {
    if (this.ctx.preview) return outputs;
    const known = withoutUnknowns(outputs, previous);
    for (const u of known.unknown) this.ctx.events.diag?.({ severity: 'warning', urn, message: unknownOutputMessage(noun, u.key, u.kept) });
    return known.outputs;
  }

  /**
   * Settles the stack's outputs once the run's outcome is known (Pulumi finalizes them last): a failed run keeps
   * the previous outputs, overlaid by those the program registered; unknown values are never stored as known.
   */
  finalizeStackOutputs(errored: boolean): void {
    const ledger = this.parts.ledger;
    const stack = [...ledger.registered.values()].find((r) => r.type === STACK_TYPE);
    if (!stack) return;
    const previous = this.ctx.options.base.resources.find((r) => r.urn === stack.urn && !r.delete)?.outputs ?? {};
    let outputs = stack.outputs ?? {};
    if (this.stackOutputs) outputs = errored ? { ...previous, ...this.stackOutputs } : this.stackOutputs;
    outputs = this.knownOutputs(stack.urn, outputs, previous, 'stack output');
    const next: ResourceState = { ...stack, outputs };
    if (!deepEqual(stack.outputs, outputs)) ledger.replaceRegistered(stack, next);
    this.ctx.events.outputs?.({ urn: stack.urn, type: stack.type, state: ledger.registered.get(stack.urn)! });
  }

  /** Handles ReadResource (and StackReference). */
  async read(goal: ReadGoal): Promise<{ urn: string; outputs: PropertyMap }> {
    const { ctx, parts } = this;
    ctx.assertRunning();
    const urn = createUrn(ctx.options.stack, ctx.options.project, goal.parent, goal.type, goal.name);
    try {
      parts.ledger.registeredUrns.add(urn);
      const { ref, provider } = await parts.providers.providerFor(goal.type, goal.provider, goal.version, undefined, goal.package);
      const inputs = resolveOutputValues(goal.inputs);
      ctx.emit('read', urn, goal.type, 'start', { new: { urn, custom: true, type: goal.type, id: goal.id, inputs, parent: goal.parent || undefined, external: true, provider: ref } });
      // Pulumi's ReadStep sends the inputs as the state too: a dynamic provider finds its code there
      const res = await ctx.providerStep(() => provider.read({ urn, name: goal.name, type: goal.type }, goal.id, inputs, inputs));
      if (!res) throw new Error(`resource '${goal.id}' does not exist`);
      const outputs = markSecretOutputs(res.outputs, goal.additionalSecretOutputs);
      const old = parts.ledger.claimOld(urn, []);
      const state: ResourceState = {
        urn, custom: true, type: goal.type, id: res.id, inputs: res.inputs ?? inputs, outputs, parent: goal.parent || undefined,
        external: true, provider: ref, dependencies: goal.dependencies.length ? goal.dependencies : undefined,
        additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
      };
      parts.ledger.record(urn, state, old);
      await ctx.save();
      ctx.emit('read', urn, goal.type, 'done', { old, new: state });
      return { urn, outputs };
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      throw ctx.fail(urn, err);
    }
  }

  /**
   * Handles Invoke through the package's provider. As Pulumi's resource monitor, a builtin function
   * (`pulumi:pulumi:getResource`, which rehydrates every resource reference) goes through the `pulumi` package's
   * default provider too, so its first use registers `pulumi:providers:pulumi::default` in the state.
   */
  async invoke(tok: string, args: PropertyMap, explicit: string | undefined, version: string | undefined, pkg?: PackageRequest): Promise<{ result: PropertyMap; failures: { property: string; reason: string }[] }> {
    this.ctx.assertRunning();
    const plainArgs = resolveOutputValues(args);
    const { provider } = await this.parts.providers.providerFor(tok, explicit, version, undefined, pkg);
    return this.ctx.slots.run(() => provider.invoke(tok, plainArgs, this.ctx.preview));
  }
}
