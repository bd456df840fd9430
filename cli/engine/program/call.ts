/**
 * Component methods: the resource monitor's `Call` goes to the provider's `Call` (Pulumi's `resmon.Call`). The
 * provider is the one named by the request, else the one that built `__self__`, else the method's package default;
 * a method on a provider resource (`pulumi:providers:<pkg>/<method>`) runs on that provider itself. Arguments keep
 * their output values and dependencies; the answer's return values get theirs as dependencies per key.
 */
import { ComponentCallError } from '../plugins/providers/component-call-error.js';
import type { PackageRequest } from '../plugins/providers/parameterized.js';
import { provproto, resproto } from '../rpc/proto.js';
import { fromStruct, resolveOutputValues, toStruct, downgradeResourceRefs, type PropertyValue } from '../resource/properties.js';
import { formatProviderRef, isProviderType } from '../resource/urn.js';
import type { StepExecutor } from '../steps/step-executor.js';
import { ShuttingDownError } from '../steps/step-types.js';
import { componentConfig, type ComponentRunInfo } from './component-info.js';
import { componentErrorMessage, extendOutputDependencies, upgradeMapToOutputValues, withoutUnknownValues } from './component-values.js';

type ResourceCallRequest = InstanceType<typeof resproto.ResourceCallRequest>;
type CallResponse = InstanceType<typeof provproto.CallResponse>;

/** Runs a component method through its provider. */
export async function callComponentMethod(executor: StepExecutor, info: ComponentRunInfo, req: ResourceCallRequest, pkg?: PackageRequest): Promise<CallResponse> {
  const tok = req.getTok();
  const args = upgradeMapToOutputValues(fromStruct(req.getArgs()));
  const { ref: explicit, type } = providerOfCall(executor, tok, args.__self__, req.getProvider());
  let provider;
  try {
    ({ provider } = await executor.componentProvider(type, explicit, req.getVersion() || undefined, req.getPlugindownloadurl() || undefined, pkg));
    if (!provider.callMethod) throw new Error(`the provider of ${tok} does not implement methods`);
  } catch (err) {
    if (err instanceof ShuttingDownError) throw err;
    throw executor.fail(undefined, err);
  }
  const declared: Record<string, string[]> = {};
  req.getArgdependenciesMap().forEach((v, k) => void (declared[k] = v.getUrnsList()));
  const c = new provproto.CallRequest().setTok(tok);
  let wire = provider.acceptOutputs ? args : resolveOutputValues(args);
  if (!provider.acceptResources) wire = downgradeResourceRefs(wire);
  c.setArgs(toStruct(wire));
  for (const [k, urns] of Object.entries(extendOutputDependencies(declared, args))) {
    c.getArgdependenciesMap().set(k, new provproto.CallRequest.ArgumentDependencies().setUrnsList(urns));
  }
  const { values } = componentConfig(info.config);
  for (const [k, v] of values) c.getConfigMap().set(k, v);
  c.setProject(info.project).setStack(info.stack).setDryrun(info.dryRun).setParallel(info.parallel);
  c.setMonitorendpoint(info.monitorAddress()).setAcceptsOutputValues(true);
  let res: CallResponse;
  try {
    res = await provider.callMethod(c);
  } catch (err) {
    if (executor.stopped) throw new ShuttingDownError('resource monitor shut down while waiting for a call to complete');
    const message = err instanceof ComponentCallError ? componentErrorMessage(err.message, err.propertyErrors, args) : String(err);
    throw executor.fail(undefined, new Error(`call to function '${tok}' failed: ${message}`));
  }
  let ret = fromStruct(res.getReturn());
  if (!info.dryRun) ret = withoutUnknownValues(ret);
  const returned: Record<string, string[]> = {};
  res.getReturndependenciesMap().forEach((v, k) => void (returned[k] = v.getUrnsList()));
  const out = new provproto.CallResponse().setReturn(toStruct(resolveOutputValues(ret))).setFailuresList(res.getFailuresList());
  for (const [k, urns] of Object.entries(extendOutputDependencies(returned, ret))) {
    out.getReturndependenciesMap().set(k, new provproto.CallResponse.ReturnDependencies().setUrnsList(urns));
  }
  return out;
}

/**
 * Which provider answers a call: for a method of a provider resource, that provider (named by `__self__`); else
 * the request's provider, or the provider `__self__` was registered with; else (no reference) the default provider
 * of the method's package.
 */
function providerOfCall(executor: StepExecutor, tok: string, self: PropertyValue | undefined, requested: string): { ref?: string; type: string } {
  const selfObj = selfRef(self);
  if (isProviderType(tok)) {
    const [pkg, method] = tok.slice('pulumi:providers:'.length).split('/');
    if (!pkg || !method) throw new Error(`invalid provider method token ${tok}`);
    if (!selfObj?.urn || selfObj.id === undefined) throw new Error('missing __self__ argument for provider method call');
    return { ref: formatProviderRef(selfObj.urn, selfObj.id), type: `${pkg}:index:${method}` };
  }
  if (requested) return { ref: requested, type: tok };
  if (selfObj?.urn) {
    const registered = executor.lookup(selfObj.urn);
    if (registered?.provider) return { ref: registered.provider, type: tok };
  }
  return { type: tok };
}

/** The URN and id of a `__self__` argument (a resource reference, possibly inside an output value). */
function selfRef(v: PropertyValue | undefined): { urn?: string; id?: string } | undefined {
  const plain = v === undefined ? undefined : resolveOutputValues(v);
  if (!plain || typeof plain !== 'object' || Array.isArray(plain)) return undefined;
  const inner = 'value' in plain && plain.value && typeof plain.value === 'object' && !Array.isArray(plain.value) ? plain.value : plain;
  return {
    urn: typeof inner.urn === 'string' ? inner.urn : undefined,
    id: typeof inner.id === 'string' ? inner.id : undefined,
  };
}
