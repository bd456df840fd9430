/**
 * Policy events as the `pulumi` CLI sends them to the service (`apitype.PolicyEvent`, `PolicyRemediationEvent`,
 * `PolicyAnalyzeSummaryEvent`, `PolicyRemediateSummaryEvent`, `PolicyAnalyzeStackSummaryEvent`; Pulumi's
 * `ConvertEngineEvent`, and the empty `PolicyLoadEvent`): the version tag repeats the version, remediation states have their secrets masked.
 */
import type { PropertyMap, PropertyValue } from '../resource/properties.js';
import type { PolicyEvent, PolicyPackRun } from './policy-events.js';

/** The payload of one policy event, keyed by its `EngineEvent` member name. */
export type PolicyEventPayload =
  | { policyEvent: Record<string, unknown> }
  | { policyRemediationEvent: Record<string, unknown> }
  | { policyAnalyzeSummaryEvent: Record<string, unknown> }
  | { policyRemediateSummaryEvent: Record<string, unknown> }
  | { policyAnalyzeStackSummaryEvent: Record<string, unknown> }
  | { policyLoadEvent: Record<string, never> };

/** Maps a policy event to its `EngineEvent` payload; `mask` hides secret values. */
export function policyEventPayload(e: PolicyEvent, mask: (v: PropertyValue) => unknown): PolicyEventPayload {
  if (e.kind === 'load') return { policyLoadEvent: {} };
  const pack = { policyPackName: e.policyPackName, policyPackVersion: e.policyPackVersion, policyPackVersionTag: e.policyPackVersion };
  const masked = (m: PropertyMap) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, mask(v)]));
  switch (e.kind) {
    case 'violation':
      return {
        policyEvent: {
          ...(e.urn ? { resourceUrn: e.urn } : {}),
          message: e.message.endsWith('\n') ? e.message : `${e.message}\n`,
          color: 'never',
          policyName: e.policyName,
          ...pack,
          enforcementLevel: e.enforcementLevel,
          ...(e.severity ? { severity: e.severity } : {}),
        },
      };
    case 'remediation':
      return { policyRemediationEvent: { ...(e.urn ? { resourceUrn: e.urn } : {}), color: 'never', policyName: e.policyName, ...pack, before: masked(e.before), after: masked(e.after) } };
    case 'analyze-summary':
      return { policyAnalyzeSummaryEvent: { resourceUrn: e.urn, ...pack, ...lists(e) } };
    case 'remediate-summary':
      return { policyRemediateSummaryEvent: { resourceUrn: e.urn, ...pack, ...lists(e) } };
    case 'analyze-stack-summary':
      return { policyAnalyzeStackSummaryEvent: { ...pack, ...lists(e) } };
  }
}

/** Go's `omitempty` on the two lists. */
function lists(e: { passed: string[]; failed: string[] }): { passed?: string[]; failed?: string[] } {
  return { ...(e.passed.length ? { passed: e.passed } : {}), ...(e.failed.length ? { failed: e.failed } : {}) };
}

/** The summary event's `PolicyPacks`: each pack's name for events and its version. */
export function policyPacksSummary(runs: readonly PolicyPackRun[] | undefined): Record<string, string> {
  return Object.fromEntries((runs ?? []).map((r) => [r.nameForEvents, r.version]));
}
