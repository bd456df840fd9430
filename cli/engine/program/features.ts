/**
 * What the resource monitor tells a program it supports, by `SupportsFeature` id and as `DeploymentInfo`'s enum
 * (Pulumi's `supportsFeatureID` and `supportedMonitorFeatures` in source_eval.go). Only what this engine implements
 * answers true: an SDK told a feature is missing falls back or says clearly that the engine lacks it, where a false
 * "yes" would have the engine ignore what the program asked for.
 */
import { resproto } from '../rpc/proto.js';

const F = resproto.ResourceMonitorFeature;

/** The implemented features: `SupportsFeature` id → `ResourceMonitorFeature`, in the enum's order. */
const SUPPORTED: ReadonlyMap<string, number> = new Map([
  ['secrets', F.RESOURCE_MONITOR_FEATURE_SECRETS],
  ['resourceReferences', F.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES],
  ['outputValues', F.RESOURCE_MONITOR_FEATURE_OUTPUT_VALUES],
  ['aliasSpecs', F.RESOURCE_MONITOR_FEATURE_ALIAS_SPECS],
  ['deletedWith', F.RESOURCE_MONITOR_FEATURE_DELETED_WITH],
  ['transforms', F.RESOURCE_MONITOR_FEATURE_TRANSFORMS],
  ['invokeTransforms', F.RESOURCE_MONITOR_FEATURE_INVOKE_TRANSFORMS],
  // also says that package references (RegisterPackage, `packageRef`) are understood, as in Pulumi
  ['parameterization', F.RESOURCE_MONITOR_FEATURE_PARAMETERIZATION],
  ['resourceHooks', F.RESOURCE_MONITOR_FEATURE_RESOURCE_HOOKS],
  ['errorHooks', F.RESOURCE_MONITOR_FEATURE_ERROR_HOOKS],
  // hooks are told the old and new resource options (ResourceHookRequest.old_options/new_options)
  ['sendsOptionsToHooks', F.RESOURCE_MONITOR_FEATURE_SENDS_OPTIONS_TO_HOOKS],
]);

/** True when the monitor implements the feature with this `SupportsFeature` id. */
export function supportsFeature(id: string): boolean {
  return SUPPORTED.has(id);
}

/** The implemented features as `DeploymentInfo.supportedFeatures` lists them. */
export function supportedMonitorFeatures(): number[] {
  return [...SUPPORTED.values()];
}
