/**
 * Multi-language components: a `RegisterResource` with `remote: true` goes to the component provider's `Construct`
 * (Pulumi's `resmon.RegisterResource` remote branch). The provider registers the component and its children back
 * with this monitor, so the engine records them as any registration; the program gets the component's URN, its
 * outputs and, per output, the resources it depends on. Components also pass their `providers` option down to
 * what is registered under them (Go's `componentProviders`).
 */
import type { CallbackRef } from './transforms.js';
import { ComponentCallError } from '../plugins/providers/component-call-error.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import { aliasproto, provproto, resproto } from '../rpc/proto.js';
import { downgradeResourceRefs, fromStruct, resolveOutputValues, stripSecrets, toStruct, containsUnknowns, type PropertyMap } from '../resource/properties.js';
import { isProviderType, packageOfType, parseProviderRef } from '../resource/urn.js';
import type { StepExecutor } from '../steps/step-executor.js';
import { bareGoal, ShuttingDownError } from '../steps/step-types.js';
import { componentConfig, type ComponentRunInfo } from './component-info.js';
import type { PackageRefs } from './packages.js';
import { componentErrorMessage, extendOutputDependencies, upgradeMapToOutputValues, withoutUnknownValues } from './component-values.js';

type RegisterRequest = InstanceType<typeof resproto.RegisterResourceRequest>;
type RegisterResponse = InstanceType<typeof resproto.RegisterResourceResponse>;
type Alias = InstanceType<typeof aliasproto.Alias>;

/** Builds remote components and keeps what their registrations hand down to their children. */
export class RemoteComponents {
  /** Each component's `providers` option (with its component parent's) by URN. */
  private readonly componentProviders = new Map<string, Record<string, string>>();
  /** The program's transforms of a remote component, by parent, type and name, until its provider registers it. */
  private readonly pendingTransforms = new Map<string, CallbackRef[]>();

  constructor(
    private readonly executor: StepExecutor,
    private readonly info: ComponentRunInfo,
    private readonly packages: PackageRefs,
  ) {}

  /**
   * Fills in the provider of a custom resource or remote component that names none (Go's `resolveProvider`): its
   * own `providers` option for its package, else the one its component parent was given.
   */
  inheritProvider(req: RegisterRequest): void {
    // a provider resource's package is `pulumi` (Go's `t.Package()`), which no `providers` option names
    if ((!req.getCustom() && !req.getRemote()) || req.getProvider() || isProviderType(req.getType())) return;
    const pkg = packageOfType(req.getType());
    const ref = mapOf(req)[pkg] ?? this.componentProviders.get(req.getParent())?.[pkg];
    if (ref) req.setProvider(ref);
  }

  /**
   * A registration's own transforms (Go's `pendingTransforms`): those the program gave a remote component become
   * the transforms of the component its provider registers, so they also reach what is registered under it.
   */
  ownTransforms(req: RegisterRequest, given: CallbackRef[]): CallbackRef[] {
    const key = `${req.getParent()}::${req.getType()}::${req.getName()}`;
    const pending = this.pendingTransforms.get(key);
    if (pending) {
      this.pendingTransforms.delete(key);
      return pending;
    }
    if (req.getRemote() && given.length) this.pendingTransforms.set(key, given);
    return given;
  }

  /** Remembers a component's `providers` option once it is registered (local or remote). */
  noteComponent(urn: string, req: RegisterRequest): void {
    if (!req.getCustom()) this.componentProviders.set(urn, this.providersOf(req));
  }

  /** A component's `providers` option with its component parent's merged in (its own win). */
  private providersOf(req: RegisterRequest): Record<string, string> {
    const parents = this.componentProviders.get(req.getParent());
    return { ...(parents ?? {}), ...mapOf(req) };
  }

  /** Builds a remote component through its provider's Construct. */
  async construct(req: RegisterRequest): Promise<RegisterResponse> {
    const type = req.getType();
    const name = req.getName();
    const inputs = upgradeMapToOutputValues(fromStruct(req.getObject()));
    let provider: Provider;
    let ref: string;
    try {
      ({ ref, provider } = await this.executor.componentProvider(type, req.getProvider() || undefined, req.getVersion() || undefined, req.getPlugindownloadurl() || undefined, this.packages.resolve(req.getPackageref())));
      if (this.unconfigured(ref)) return await this.registerUnconstructed(req);
      if (!provider.construct) throw new Error(`the ${packageOfType(type)} provider does not construct components`);
      if (!provider.acceptSecrets) throw new Error('plugins that can construct components must support secrets');
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      throw this.executor.fail(undefined, err);
    }
    const creq = this.constructRequest(req, inputs, provider);
    let res: InstanceType<typeof provproto.ConstructResponse>;
    try {
      res = await provider.construct(creq);
    } catch (err) {
      // a run that already stopped (a child's step failed, a cancel) reported its reason; the provider only echoes it
      if (this.executor.stopped) throw new ShuttingDownError('resource monitor shut down while waiting for construct to complete');
      const message = err instanceof ComponentCallError ? componentErrorMessage(err.message, err.propertyErrors, inputs) : String(err);
      throw this.executor.fail(undefined, new Error(`${type} resource '${name}' has a problem: ${message}`));
    }
    const urn = res.getUrn();
    this.noteComponent(urn, req);
    return this.registerResponse(req, urn, res);
  }

  /** In a preview, a provider whose configuration is not known yet (an explicit provider's inputs are unknown). */
  private unconfigured(ref: string): boolean {
    if (!this.info.dryRun) return false;
    const state = this.executor.lookup(parseProviderRef(ref).urn);
    return state !== undefined && containsUnknowns(state.inputs ?? {});
  }

  /**
   * What Pulumi's provider plugin does when it cannot be configured yet: it registers the component itself (type, name
   * and parent only) to answer its URN, and nothing under it is previewed.
   */
  private async registerUnconstructed(req: RegisterRequest): Promise<RegisterResponse> {
    const res = await this.executor.register(bareGoal(req.getType(), req.getName(), false, {}, { parent: req.getParent() || undefined }));
    this.noteComponent(res.urn, req);
    return new resproto.RegisterResourceResponse().setUrn(res.urn).setId('').setObject(toStruct({})).setResult(resproto.Result.SUCCESS);
  }

  private constructRequest(req: RegisterRequest, inputs: PropertyMap, provider: Provider): InstanceType<typeof provproto.ConstructRequest> {
    const c = new provproto.ConstructRequest();
    const { values, secretKeys } = componentConfig(this.info.config);
    for (const [k, v] of values) c.getConfigMap().set(k, v);
    c.setConfigsecretkeysList(secretKeys);
    c.setProject(this.info.project).setStack(this.info.stack).setOrganization(this.info.organization);
    c.setDryrun(this.info.dryRun).setParallel(this.info.parallel).setMonitorendpoint(this.info.monitorAddress());
    c.setType(req.getType()).setName(req.getName()).setParent(req.getParent());
    let wire = provider.acceptOutputs ? inputs : resolveOutputValues(inputs);
    if (!provider.acceptResources) wire = downgradeResourceRefs(wire);
    c.setInputs(toStruct(wire));
    const declared: Record<string, string[]> = {};
    req.getPropertydependenciesMap().forEach((v, k) => void (declared[k] = v.getUrnsList()));
    for (const [k, urns] of Object.entries(extendOutputDependencies(declared, inputs))) {
      c.getInputdependenciesMap().set(k, new provproto.ConstructRequest.PropertyDependencies().setUrnsList(urns));
    }
    c.setDependenciesList([...new Set(req.getDependenciesList())]);
    for (const [pkg, ref] of Object.entries(this.providersOf(req))) c.getProvidersMap().set(pkg, ref);
    c.setAliasesList(aliasesOf(req));
    if (req.hasProtect()) c.setProtect(req.getProtect()!);
    if (req.hasRetainondelete()) c.setRetainondelete(req.getRetainondelete()!);
    if (req.getDeletebeforereplacedefined() || req.getDeletebeforereplace()) c.setDeletebeforereplace(req.getDeletebeforereplace());
    c.setAdditionalsecretoutputsList(req.getAdditionalsecretoutputsList());
    c.setIgnorechangesList(req.getIgnorechangesList()).setReplaceonchangesList(req.getReplaceonchangesList());
    c.setDeletedwith(req.getDeletedwith()).setReplaceWithList(req.getReplaceWithList());
    const trigger = req.getReplacementTrigger();
    if (trigger) c.setReplacementTrigger(trigger);
    const ct = req.getCustomtimeouts();
    if (ct) c.setCustomtimeouts(new provproto.ConstructRequest.CustomTimeouts().setCreate(ct.getCreate()).setUpdate(ct.getUpdate()).setDelete(ct.getDelete()));
    const hooks = req.getHooks();
    if (hooks) {
      const b = new provproto.ConstructRequest.ResourceHooksBinding();
      b.setBeforeCreateList(hooks.getBeforeCreateList()).setAfterCreateList(hooks.getAfterCreateList());
      b.setBeforeUpdateList(hooks.getBeforeUpdateList()).setAfterUpdateList(hooks.getAfterUpdateList());
      b.setBeforeDeleteList(hooks.getBeforeDeleteList()).setAfterDeleteList(hooks.getAfterDeleteList());
      b.setOnErrorList(hooks.getOnErrorList());
      c.setResourceHooks(b);
    }
    c.setAcceptsOutputValues(true);
    return c;
  }

  /**
   * The program's answer: the component's state with output values resolved (secrets stay secret, unknowns stay
   * unknown in previews and are left out otherwise), and per output the resources it depends on.
   */
  private registerResponse(req: RegisterRequest, urn: string, res: InstanceType<typeof provproto.ConstructResponse>): RegisterResponse {
    let state = fromStruct(res.getState());
    if (!this.info.dryRun) state = withoutUnknownValues(state);
    const declared: Record<string, string[]> = {};
    res.getStatedependenciesMap().forEach((v, k) => void (declared[k] = v.getUrnsList()));
    const deps = extendOutputDependencies(declared, state);
    let outputs = resolveOutputValues(state);
    if (!req.getAcceptsecrets()) outputs = stripSecrets(outputs);
    if (!req.getAcceptresources()) outputs = downgradeResourceRefs(outputs);
    if (!req.getSupportspartialvalues()) outputs = Object.fromEntries(Object.entries(outputs).filter(([, v]) => !containsUnknowns(v)));
    const out = new resproto.RegisterResourceResponse().setUrn(urn).setId('').setObject(toStruct(outputs)).setResult(resproto.Result.SUCCESS);
    for (const [k, urns] of Object.entries(deps)) {
      out.getPropertydependenciesMap().set(k, new resproto.RegisterResourceResponse.PropertyDependencies().setUrnsList(urns));
    }
    return out;
  }
}

function mapOf(req: RegisterRequest): Record<string, string> {
  const out: Record<string, string> = {};
  req.getProvidersMap().forEach((ref, pkg) => void (out[pkg] = ref));
  return out;
}

/** The aliases Construct is given: URN aliases and specs, a spec's empty parent URN meaning "the default parent". */
function aliasesOf(req: RegisterRequest): Alias[] {
  const out: Alias[] = req.getAliasurnsList().map((urn) => new aliasproto.Alias().setUrn(urn));
  for (const a of req.getAliasesList()) {
    const spec = a.getSpec();
    if (!spec) {
      if (a.getUrn()) out.push(new aliasproto.Alias().setUrn(a.getUrn()));
      continue;
    }
    const copy = new aliasproto.Alias.Spec().setName(spec.getName()).setType(spec.getType()).setStack(spec.getStack()).setProject(spec.getProject());
    if (spec.hasNoparent() && spec.getNoparent()) copy.setNoparent(true);
    else if (spec.hasParenturn() && spec.getParenturn()) copy.setParenturn(spec.getParenturn());
    out.push(new aliasproto.Alias().setSpec(copy));
  }
  return out;
}
