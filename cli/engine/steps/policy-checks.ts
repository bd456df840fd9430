/**
 * The policy packs' part in step generation (Pulumi's `step_generator.go`): a registration's inputs, once its
 * provider checked them, go through every pack's remediations and then its analysis before any Diff, Create or
 * Update; a mandatory violation outside a preview makes the resource invalid, so it is not operated on and the run
 * stops. `stackResources` is what AnalyzeStack sees at the end: every resource of the new state with its outputs.
 */
import type { AnalyzerProvider, AnalyzerResource, AnalyzerStackResource } from '../plugins/analyzers/analyzer-types.js';
import type { PolicyPacks } from '../plugins/analyzers/policy-packs.js';
import type { PropertyMap } from '../resource/properties.js';
import { parseProviderRef } from '../resource/urn.js';
import type { ResourceState } from '../state/deployment.js';

/** A mandatory policy was violated: the resource must not be created or changed. */
export class PolicyViolationError extends Error {
  override readonly name = 'PolicyViolationError';
}

function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf('::') + 2);
}

function providerOf(state: ResourceState, lookup: (urn: string) => ResourceState | undefined): AnalyzerProvider | undefined {
  if (!state.provider) return undefined;
  const p = lookup(parseProviderRef(state.provider).urn);
  return p ? { urn: p.urn, type: p.type, name: nameOf(p.urn), properties: p.inputs ?? {} } : undefined;
}

function analyzerResource(state: ResourceState, properties: PropertyMap, deleteBeforeReplace: boolean | undefined, lookup: (urn: string) => ResourceState | undefined): AnalyzerResource {
  return {
    urn: state.urn,
    type: state.type,
    name: nameOf(state.urn),
    properties,
    options: {
      protect: state.protect === true,
      ignoreChanges: state.ignoreChanges ?? [],
      deleteBeforeReplace,
      additionalSecretOutputs: state.additionalSecretOutputs ?? [],
      aliases: state.aliases ?? [],
      customTimeouts: state.customTimeouts,
      parent: state.parent ?? '',
    },
    provider: providerOf(state, lookup),
  };
}

/**
 * Remediates and analyzes a registration's inputs; returns the inputs the provider is to see. `proposed` is the
 * state the registration proposes (its options, parent and provider reference).
 */
export async function applyPolicies(
  packs: PolicyPacks,
  proposed: ResourceState,
  inputs: PropertyMap,
  o: { deleteBeforeReplace?: boolean; preview: boolean; lookup: (urn: string) => ResourceState | undefined },
): Promise<PropertyMap> {
  const remediated = await packs.remediate(analyzerResource(proposed, inputs, o.deleteBeforeReplace, o.lookup));
  const { invalid } = await packs.analyze(analyzerResource(proposed, remediated, o.deleteBeforeReplace, o.lookup), o.preview);
  if (invalid) throw new PolicyViolationError(`resource ${proposed.urn} is invalid: it violates a mandatory policy (see Policies)`);
  return remediated;
}

/**
 * AnalyzeStack's view of the final resources: outputs, parent, dependencies and provider of each, and the
 * `deleteBeforeReplace` its registration gave this run (a state keeps no such option; Pulumi reads it off the goal).
 */
export function stackResources(states: readonly ResourceState[], deleteBeforeReplaceOf: (urn: string) => boolean | undefined): AnalyzerStackResource[] {
  const byUrn = new Map(states.map((s) => [s.urn, s]));
  return states.map((s) => ({
    ...analyzerResource(s, s.outputs ?? {}, deleteBeforeReplaceOf(s.urn), (u) => byUrn.get(u)),
    parent: s.parent ?? '',
    dependencies: s.dependencies ?? [],
    propertyDependencies: s.propertyDependencies ?? {},
  }));
}
