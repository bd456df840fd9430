/**
 * The policy packs of one run, driven as Pulumi's engine drives its analyzers:
 * - `start`: each pack launched (in parallel), its config file read and reconciled with its policies and validated
 *   before anything runs (Pulumi's `loadPolicyPlugins`: each validation error reported, then the run fails);
 * - `remediate` then `analyze` per resource, after the provider's Check and before its Diff/Create (step_generator's
 *   two passes: remediations in pack order, each seeing the last one's output; analysis of the final inputs);
 * - `analyzeStack` once every step succeeded, over each resource's outputs.
 * A remediate-level violation still reported after remediation counts as mandatory, as in Pulumi.
 */
import type { EngineEvents } from '../../display/events.js';
import type { PolicyPackRun, PolicySummary } from '../../display/policy-events.js';
import type { PropertyMap } from '../../resource/properties.js';
import type { AnalyzerClient } from './analyzer-client.js';
import type { AnalyzerInfo, AnalyzerResource, AnalyzerStackResource, PolicyDiagnostic } from './analyzer-types.js';
import { launchPack, type PackLaunchOptions } from './pack-launch.js';
import { loadPolicyConfigFile, parsePolicyConfigFromApi, reconcilePolicyConfig, type GivenPolicyConfig } from './policy-config.js';

/** A pack given with `--policy-pack`, and the `--policy-pack-config` file at the same position. */
export interface LocalPolicyPackSpec {
  path: string;
  configFile?: string;
}

/**
 * A pack the service requires (installed by then at `path`): its name and version tag, which the summary event
 * reports it by, and the policy group's config for it.
 */
export interface RequiredPolicyPackSpec {
  path: string;
  required: { name: string; version: string; config?: Record<string, unknown> };
}

/** A required pack could not be downloaded or installed: the update fails with this message, before the program runs. */
export class PolicyPackInstallError extends Error {
  override name = 'PolicyPackInstallError';
}

/** A pack of the run: required ones first, then the local ones, as Pulumi's `loadPolicyPlugins` loads them. */
export type PolicyPackSpec = LocalPolicyPackSpec | RequiredPolicyPackSpec;

interface RunningPack {
  client: AnalyzerClient;
  info: AnalyzerInfo;
  run: PolicyPackRun;
}

/** Pulumi's `abbreviateFilePath`: a path over 75 characters keeps its first two and last two parts. */
function abbreviate(path: string): string {
  if (path.length <= 75) return path;
  const parts = path.split('/');
  return parts.length > 4 ? [...parts.slice(0, 2), '...', ...parts.slice(-2)].join('/') : path;
}

/** The running packs of one run. */
export class PolicyPacks {
  /** A mandatory violation was reported this run (a preview goes on, but fails at its end). */
  mandatoryReported = false;

  private constructor(
    private readonly packs: RunningPack[],
    private readonly events: EngineEvents,
  ) {}

  /** Starts every pack and configures it; validation errors are reported one by one, then the start fails. */
  static async start(specs: readonly PolicyPackSpec[], o: PackLaunchOptions & { events: EngineEvents; stackUrn: string }): Promise<PolicyPacks> {
    // config files first: a bad file fails the run before any pack starts
    const files = specs.map((s): Record<string, GivenPolicyConfig> | undefined =>
      'required' in s ? parsePolicyConfigFromApi(s.required.config, s.required.name) : s.configFile ? loadPolicyConfigFile(s.configFile) : undefined,
    );
    // one load event per pack as it starts loading, as Pulumi's loadPolicyPlugins emits them
    const settled = await Promise.allSettled(
      specs.map((s) => {
        o.events.policy?.({ kind: 'load' });
        return launchPack(s.path, o);
      }),
    );
    const started = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const closeAll = () => Promise.all(started.map((c) => c.close()));
    if (failed) {
      await closeAll();
      throw failed.reason;
    }
    const packs: RunningPack[] = [];
    const validationErrors: string[] = [];
    try {
      for (const [i, client] of started.entries()) {
        const spec = specs[i]!;
        const info = await client.analyzerInfo();
        // a required pack is reported by the name and version the service gave (Pulumi's RequiredPolicy Name/Version)
        const run = 'required' in spec ? { nameForEvents: spec.required.name, version: spec.required.version } : { nameForEvents: `${info.name}|local|${abbreviate(spec.path)}`, version: info.version };
        packs.push({ client, info, run });
        if (!info.supportsConfig) {
          // as Pulumi: a group's config for a pack that takes none is ignored; a local config file is an error
          if ('configFile' in spec && spec.configFile) throw new Error(`policy pack "${info.name}" at "${spec.path}" does not support config`);
          continue;
        }
        const { config, errors } = reconcilePolicyConfig(info.policies, info.initialConfig, files[i] ?? {});
        for (const e of errors) validationErrors.push(`validating policy config: ${info.name} ${info.version}  ${e}`);
        if (!errors.length) await client.configure(config);
      }
      if (validationErrors.length) {
        // reported on the stack, as Pulumi's display attributes a diagnostic naming no resource
        for (const message of validationErrors.sort()) o.events.diag?.({ severity: 'error', message, urn: o.stackUrn });
        throw new Error('validating policy config');
      }
    } catch (err) {
      await closeAll();
      throw err;
    }
    return new PolicyPacks(packs, o.events);
  }

  /** The packs that ran, for the summary event's `PolicyPacks`. */
  runs(): PolicyPackRun[] {
    return this.packs.map((p) => p.run);
  }

  /** Remediations of every pack in order; returns the inputs the provider is to see. */
  async remediate(r: AnalyzerResource): Promise<PropertyMap> {
    let properties = r.properties;
    for (const pack of this.packs) {
      const answer = await pack.client.remediate({ ...r, properties });
      for (const x of answer.results) {
        if (x.diagnostic) {
          this.events.policy?.({
            kind: 'violation', urn: r.urn, policyName: x.policyName, policyPackName: x.policyPackName, policyPackVersion: x.policyPackVersion,
            message: x.diagnostic, enforcementLevel: 'advisory', severity: '',
          });
        } else if (x.properties) {
          this.events.policy?.({ kind: 'remediation', urn: r.urn, policyName: x.policyName, policyPackName: x.policyPackName, policyPackVersion: x.policyPackVersion, before: properties, after: x.properties });
          properties = x.properties;
        }
      }
      this.summary('remediate-summary', r.urn, pack, 'resource', answer.results.map((x) => x.policyName), answer.notApplicable);
    }
    return properties;
  }

  /**
   * Every pack's Analyze of the resource's final inputs. `invalid`: a mandatory violation outside a preview (the
   * resource must not be operated on); `sawMandatory`: any mandatory violation (the run fails).
   */
  async analyze(r: AnalyzerResource, dryRun: boolean): Promise<{ invalid: boolean; sawMandatory: boolean }> {
    let sawMandatory = false;
    await Promise.all(
      this.packs.map(async (pack) => {
        const answer = await pack.client.analyze(r);
        sawMandatory = this.report(answer.results, () => r.urn) || sawMandatory;
        this.summary('analyze-summary', r.urn, pack, 'resource', answer.results.map((d) => d.policyName), answer.notApplicable);
      }),
    );
    return { invalid: sawMandatory && !dryRun, sawMandatory };
  }

  /**
   * Every pack's AnalyzeStack over the final resources; a violation naming no registered resource is the stack's
   * (Pulumi's `resolveStackPolicyViolationURN`). True when a mandatory violation was reported.
   */
  async analyzeStack(resources: readonly AnalyzerStackResource[], rootUrn: string): Promise<boolean> {
    const known = new Set(resources.map((r) => r.urn));
    let sawMandatory = false;
    await Promise.all(
      this.packs.map(async (pack) => {
        const answer = await pack.client.analyzeStack(resources);
        sawMandatory = this.report(answer.results, (d) => (d.urn && known.has(d.urn) ? d.urn : rootUrn)) || sawMandatory;
        this.summary('analyze-stack-summary', '', pack, 'stack', answer.results.map((d) => d.policyName), answer.notApplicable);
      }),
    );
    return sawMandatory;
  }

  private report(diagnostics: readonly PolicyDiagnostic[], urnOf: (d: PolicyDiagnostic) => string): boolean {
    let mandatory = false;
    for (const d of diagnostics) {
      // a remediate-level violation left after remediation, or a stack policy's (which cannot remediate), is mandatory
      const level = d.enforcementLevel === 'remediate' || d.enforcementLevel === 'mandatory' ? 'mandatory' : d.enforcementLevel === 'advisory' ? 'advisory' : undefined;
      if (!level) continue;
      if (level === 'mandatory') mandatory = this.mandatoryReported = true;
      this.events.policy?.({
        kind: 'violation', urn: urnOf(d), policyName: d.policyName, policyPackName: d.policyPackName, policyPackVersion: d.policyPackVersion,
        message: d.message, enforcementLevel: level, severity: d.severity,
      });
    }
    return mandatory;
  }

  /**
   * Pulumi's `newPolicySummary`: failed are the policies that reported; passed, the pack's enabled policies of the
   * call's type (or of no type) that neither reported nor said they did not apply. Both sorted.
   */
  private summary(kind: PolicySummary['kind'], urn: string, pack: RunningPack, type: 'resource' | 'stack', reported: readonly string[], notApplicable: readonly string[]): void {
    const failed = new Set(reported);
    const skipped = new Set(notApplicable);
    const passed = pack.info.policies
      .filter((p) => (p.type === type || p.type === 'unknown') && p.enforcementLevel !== 'disabled' && !failed.has(p.name) && !skipped.has(p.name))
      .map((p) => p.name);
    this.events.policy?.({ kind, urn, policyPackName: pack.info.name, policyPackVersion: pack.info.version, passed: [...new Set(passed)].sort(), failed: [...failed].sort() });
  }

  /** Stops every pack. */
  async close(): Promise<void> {
    await Promise.all(this.packs.map((p) => p.client.close()));
  }
}
