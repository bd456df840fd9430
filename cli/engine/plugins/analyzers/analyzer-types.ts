/** The vocabulary of policy packs (Pulumi's `plugin.Analyzer*` types), shared by the analyzer room and its callers. */
import type { PropertyMap } from '../../resource/properties.js';

/** Pulumi's enforcement levels, in the order its display ranks them. */
export const ENFORCEMENT_LEVELS = ['advisory', 'mandatory', 'remediate', 'disabled'] as const;
/** One enforcement level. */
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];
/** A policy's severity; empty when unspecified. */
export type PolicySeverity = '' | 'low' | 'medium' | 'high' | 'critical';

/** One policy's configuration: its level and its properties. */
export interface PolicyConfigEntry {
  enforcementLevel: EnforcementLevel;
  properties: Record<string, unknown>;
}

/** A policy's config schema (JSON Schema properties and required names). */
export interface PolicyConfigSchema {
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

/** A policy as GetAnalyzerInfo describes it. */
export interface PolicyInfo {
  name: string;
  displayName?: string;
  description: string;
  /** The message a violation of it carries (sent when the pack is published). */
  message?: string;
  enforcementLevel: EnforcementLevel;
  /** Which calls it answers: resource policies Analyze and Remediate, stack policies AnalyzeStack. */
  type: 'resource' | 'stack' | 'unknown';
  /** Only when the pack supports config; `enforcementLevel` is always among its properties then. */
  configSchema?: PolicyConfigSchema;
}

/** GetAnalyzerInfo's answer. */
export interface AnalyzerInfo {
  name: string;
  displayName?: string;
  version: string;
  supportsConfig: boolean;
  policies: PolicyInfo[];
  initialConfig: Record<string, PolicyConfigEntry>;
}

/** The resource options an analyzer sees. */
export interface AnalyzerResourceOptions {
  protect: boolean;
  ignoreChanges: string[];
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs: string[];
  aliases: string[];
  customTimeouts?: { create?: number; update?: number; delete?: number };
  parent: string;
}

/** A resource's provider as an analyzer sees it. */
export interface AnalyzerProvider {
  urn: string;
  type: string;
  name: string;
  properties: PropertyMap;
}

/** What Analyze and Remediate are given. */
export interface AnalyzerResource {
  urn: string;
  type: string;
  name: string;
  properties: PropertyMap;
  options: AnalyzerResourceOptions;
  provider?: AnalyzerProvider;
}

/** What AnalyzeStack is given per resource. */
export interface AnalyzerStackResource extends AnalyzerResource {
  parent: string;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
}

/** A violation a policy reported. */
export interface PolicyDiagnostic {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  description: string;
  message: string;
  enforcementLevel: EnforcementLevel;
  urn: string;
  severity: PolicySeverity;
}

/** A remediation: new properties, or a diagnostic saying why it could not run. */
export interface PolicyRemediation {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  description: string;
  properties?: PropertyMap;
  diagnostic: string;
}

/** An Analyze, AnalyzeStack or Remediate answer: what it reported, and the policies that did not apply. */
export interface AnalyzerAnswer<T> {
  results: T[];
  notApplicable: string[];
}
