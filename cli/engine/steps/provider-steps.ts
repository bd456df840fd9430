/**
 * Provider resources in a run: registering one (its configuration checked, then the plugin configured), the default
 * provider of a package registered on first use (Pulumi's `default_providers.go`), and the configured provider a
 * reference names, started from its recorded inputs when only the base state knows it.
 */
import { applyPolicies } from './policy-checks.js';
import type { ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import { defaultProviderDisabledError, isDefaultProviderDisabled } from '../plugins/providers/default-provider-denial.js';
import { defaultProviderInputs } from '../plugins/providers/default-provider-inputs.js';
import { formatCheckFailures, type ResourceRef } from '../plugins/providers/provider-client.js';
import { withoutInternal } from '../plugins/providers/provider-internals.js';
import { packageNameOf, packageRequestKey, packageVersionOf, withPackageRequest, type PackageRequest } from '../plugins/providers/parameterized.js';
import { defaultProviderUrn, ProviderRegistry, type Provider } from '../plugins/providers/provider-registry.js';
import { changedKeys, deepEqual, resolveOutputValues, UNKNOWN } from '../resource/properties.js';
import { formatProviderRef, isProviderType, packageOfType, parseProviderRef, urnName } from '../resource/urn.js';
import { registrationHookArgs } from './resource-hooks.js';
import type { RunLedger } from './run-ledger.js';
import { planGoal, planSteps } from './plan-hooks.js';
import { proposedState } from './step-generator.js';
import { bareGoal, type RegisterGoal, type RegisterResult, type RunContext, type StepDetails } from './step-types.js';

/** Registers provider resources and finds the provider of each resource. */
export class ProviderSteps {
  /** Default provider references by package, version and download URL, registered once each. */
  private readonly defaults = new Map<string, Promise<string>>();
  /** Providers of the base state by reference. */
  private readonly baseProviders = new Map<string, ResourceState>();

  constructor(
    private readonly ctx: RunContext,
    private readonly ledger: RunLedger,
  ) {
    for (const r of ctx.options.base.resources) {
      if (isProviderType(r.type) && r.id) this.baseProviders.set(formatProviderRef(r.urn, r.id), r);
    }
  }

  /** Registers a provider resource: checks its configuration, configures the plugin and records the state. */
  async register(goal: RegisterGoal, urn: string, old: ResourceState | undefined): Promise<RegisterResult> {
    const o = this.ctx.options;
    const pkg = packageOfType(goal.type);
    const given = resolveOutputValues(goal.inputs);
    // the `version` and `pluginDownloadURL` options, or what a package reference stands for (its parameterization
    // too), are recorded in the inputs, as Pulumi's RegisterResource does for provider resources
    const inputs = withPackageRequest(given, goal.package ?? { name: pkg, version: goal.version, pluginDownloadURL: goal.pluginDownloadURL });
    const ref: ResourceRef = { urn, name: goal.name, type: goal.type };
    const launched = o.registry.launchFor(goal.type, inputs);
    const provider = await launched;
    const checked = await provider.checkConfig(ref, old?.inputs ?? {}, inputs);
    if (checked.failures.length) throw new Error(`provider configuration is invalid: ${formatCheckFailures(checked.failures)}`);
    // a provider resource is a resource too: the packs see (and may remediate) its configuration, as in Pulumi
    const config = o.policies
      ? await applyPolicies(o.policies, proposedState(goal, urn, {}), checked.inputs, { deleteBeforeReplace: goal.deleteBeforeReplace, preview: o.preview, lookup: (u) => this.ledger.lookup(u) })
      : checked.inputs;
    // as Pulumi's registry Diff: the engine's `__internal` keys are not the provider's configuration
    const op: StepOp = !old ? 'create' : deepEqual(withoutInternal(old.inputs ?? {}), withoutInternal(config)) ? 'same' : 'update';
    const id = old?.id ?? (o.preview ? UNKNOWN : ProviderRegistry.newId());
    const state = proposedState(goal, urn, { id, inputs: config, outputs: config });
    planGoal(this.ctx, urn, goal, undefined, old, config);
    planSteps(this.ctx, urn, [op]);
    const details: StepDetails = { old, new: state, ...(op === 'update' ? { diffKeys: changedKeys(withoutInternal(old!.inputs ?? {}), withoutInternal(config)) } : {}) };
    this.ctx.emit(op, urn, goal.type, 'start', details);
    const hookArgs = registrationHookArgs(state, old);
    if (op !== 'same') await this.ctx.hooks.run(old ? 'BeforeUpdate' : 'BeforeCreate', state, hookArgs);
    await o.registry.configureNew(urn, id, pkg, config, launched);
    this.ledger.record(urn, state, old);
    if (op !== 'same') {
      await this.ctx.save();
      await this.ctx.hooks.after(old ? 'AfterUpdate' : 'AfterCreate', state, { ...hookArgs, id, newOutputs: config });
    }
    this.ctx.emit(op, urn, goal.type, 'done', details);
    return { urn, id: o.preview && !old ? '' : id, outputs: config, result: 'success' };
  }

  /**
   * Resolves the provider of a resource: explicit reference, or the default provider of its package (the one its
   * package reference stands for, else its type's at the version and download URL asked for). `subject` (the
   * resource's URN, else the type or function token) names the request when its package's default is disabled.
   */
  async providerFor(type: string, explicit: string | undefined, version: string | undefined, pluginDownloadURL?: string, pkg?: PackageRequest, subject = type): Promise<{ ref: string; provider: Provider }> {
    const request = pkg ?? { name: packageOfType(type), version: version || undefined, pluginDownloadURL: pluginDownloadURL || undefined };
    if (!explicit && isDefaultProviderDisabled(packageNameOf(request), this.ctx.options.config)) {
      throw defaultProviderDisabledError(packageNameOf(request), subject);
    }
    const ref = explicit || (await this.defaultProvider(request));
    return { ref, provider: await this.providerByRef(ref) };
  }

  /** A configured provider by reference; providers only in the base state are started from their recorded inputs. */
  providerByRef(ref: string): Promise<Provider> {
    const registry = this.ctx.options.registry;
    const existing = registry.get(ref);
    if (existing) return existing;
    const state = this.baseProviders.get(ref);
    if (!state) return Promise.reject(new Error(`unknown provider reference ${ref}`));
    const { urn, id } = parseProviderRef(ref);
    return registry.configureNew(urn, id, packageOfType(state.type), state.inputs ?? {});
  }

  /**
   * The default provider reference for a package request, registering it on first use (Go's
   * `newRegisterDefaultProviderEvent`): named by the sub-package and its version when parameterized, configured from
   * that package's stack config.
   */
  private defaultProvider(req: PackageRequest): Promise<string> {
    const key = packageRequestKey(req);
    let p = this.defaults.get(key);
    if (!p) {
      p = (async () => {
        const o = this.ctx.options;
        const pkg = packageNameOf(req);
        const urn = defaultProviderUrn(o.stack, o.project, pkg, packageVersionOf(req), req.pluginDownloadURL);
        const goal = bareGoal(`pulumi:providers:${pkg}`, urnName(urn), true, defaultProviderInputs(pkg, o.config, req.version), { package: req });
        this.ledger.registeredUrns.add(urn);
        const res = await this.register(goal, urn, this.ledger.claimOld(urn, []));
        return formatProviderRef(urn, res.id || UNKNOWN);
      })();
      this.defaults.set(key, p);
    }
    return p;
  }
}
