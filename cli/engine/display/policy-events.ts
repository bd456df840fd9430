/**
 * What policy packs report during a run, as Pulumi's engine emits it (`PolicyViolationEventPayload`,
 * `PolicyRemediationEventPayload` and the three summaries); `engine-events.ts` turns them into `apitype` events.
 */
import type { PropertyMap } from '../resource/properties.js';

/** A pack and its version, as every policy event names them. */
export interface PolicyPackRef {
  policyPackName: string;
  policyPackVersion: string;
}

/** A policy reported a violation; `urn` is empty for a stack policy that names no resource. */
export interface PolicyViolation extends PolicyPackRef {
  kind: 'violation';
  urn: string;
  policyName: string;
  /** `description\nmessage` as the pack composed it. */
  message: string;
  enforcementLevel: 'advisory' | 'mandatory';
  severity: string;
}

/** A remediation changed a resource's inputs. */
export interface PolicyRemediationApplied extends PolicyPackRef {
  kind: 'remediation';
  urn: string;
  policyName: string;
  before: PropertyMap;
  after: PropertyMap;
}

/** Which policies of a pack passed and which failed for one call. */
export interface PolicySummary extends PolicyPackRef {
  kind: 'analyze-summary' | 'remediate-summary' | 'analyze-stack-summary';
  /** The resource (empty for the stack summary). */
  urn: string;
  passed: string[];
  failed: string[];
}

/** A pack starts loading (Pulumi's `PolicyLoadEvent`, one per pack, required ones and `--policy-pack` ones). */
export interface PolicyLoad {
  kind: 'load';
}

/** One policy event. */
export type PolicyEvent = PolicyViolation | PolicyRemediationApplied | PolicySummary | PolicyLoad;

/** A pack that ran: its name for events (Pulumi's `name|local|path`) and version, for the summary's `PolicyPacks`. */
export interface PolicyPackRun {
  nameForEvents: string;
  version: string;
}
