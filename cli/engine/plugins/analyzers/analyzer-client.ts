/**
 * A client for one running policy pack (`pulumirpc.Analyzer`), as Pulumi's `analyzer_plugin.go` drives it:
 * Handshake and ConfigureStack may be unimplemented, AnalyzeStack and Remediate too (an older pack: nothing to
 * report); every call has a deadline, and a failure names the pack and what it was asked.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import { callUnary, ENGINE_GRPC_OPTIONS, grpcMessage, hasCode } from '../../rpc/grpc-util.js';
import { anproto, anrpc, emptyproto, grpc, structproto } from '../../rpc/proto.js';
import { fromStruct, resolveOutputValues, toStruct, type PropertyMap, type PropertyValue } from '../../resource/properties.js';
import type { PluginProcess } from '../plugin-host.js';
import {
  ENFORCEMENT_LEVELS,
  type AnalyzerAnswer,
  type AnalyzerInfo,
  type AnalyzerResource,
  type AnalyzerStackResource,
  type EnforcementLevel,
  type PolicyConfigEntry,
  type PolicyDiagnostic,
  type PolicyRemediation,
  type PolicySeverity,
} from './analyzer-types.js';

type Client = InstanceType<typeof anrpc.AnalyzerClient>;
type ProtoResource = InstanceType<typeof anproto.AnalyzerResource>;
type ProtoDiagnostic = InstanceType<typeof anproto.AnalyzeDiagnostic>;

/** A pack's call failed, or its answer made no sense; the message names the pack. */
export class PolicyPackError extends Error {
  override readonly name = 'PolicyPackError';
}

const LEVEL_OF: Record<number, EnforcementLevel> = {
  [anproto.EnforcementLevel.ADVISORY]: 'advisory',
  [anproto.EnforcementLevel.MANDATORY]: 'mandatory',
  [anproto.EnforcementLevel.DISABLED]: 'disabled',
  [anproto.EnforcementLevel.REMEDIATE]: 'remediate',
};
const SEVERITY_OF: Record<number, PolicySeverity> = {
  [anproto.PolicySeverity.POLICY_SEVERITY_LOW]: 'low',
  [anproto.PolicySeverity.POLICY_SEVERITY_MEDIUM]: 'medium',
  [anproto.PolicySeverity.POLICY_SEVERITY_HIGH]: 'high',
  [anproto.PolicySeverity.POLICY_SEVERITY_CRITICAL]: 'critical',
};

const POLICY_TYPE_OF: Record<number, 'resource' | 'stack'> = {
  [anproto.PolicyType.POLICY_TYPE_RESOURCE]: 'resource',
  [anproto.PolicyType.POLICY_TYPE_STACK]: 'stack',
};

/** The settings ConfigureStack passes (Pulumi's `PolicyAnalyzerOptions`). */
export interface StackSettings {
  organization: string;
  project: string;
  stack: string;
  dryRun: boolean;
  config: Record<string, string>;
  configSecretKeys: string[];
  tags?: Record<string, string>;
}

/** One running pack. `label` names it in errors (its path). */
export class AnalyzerClient {
  /** The version PulumiPolicy.yaml gives, which wins over the pack's own answers (as in Pulumi). */
  yamlVersion = '';
  private info?: AnalyzerInfo;
  private severities = new Map<string, PolicySeverity>();

  constructor(
    private readonly client: Client,
    private readonly proc: PluginProcess,
    readonly label: string,
    private readonly callMs: number,
  ) {}

  /** A client for a pack whose process printed `port`. */
  static connect(proc: PluginProcess, label: string, callMs: number): AnalyzerClient {
    const client = new anrpc.AnalyzerClient(`127.0.0.1:${proc.port}`, grpc.credentials.createInsecure(), ENGINE_GRPC_OPTIONS);
    return new AnalyzerClient(client, proc, label, callMs);
  }

  private async call<Req, Res>(
    op: string,
    method: (req: Req, md: grpcTypes.Metadata, o: Partial<grpcTypes.CallOptions>, cb: (e: grpcTypes.ServiceError | null, r: Res) => void) => grpcTypes.ClientUnaryCall,
    req: Req,
  ): Promise<Res> {
    try {
      return await callUnary(method, this.client, req, this.callMs);
    } catch (err) {
      if (hasCode(err, grpc.status.UNIMPLEMENTED)) throw err;
      const output = this.proc.output().trim();
      const hint = output && !hasCode(err, grpc.status.UNKNOWN) ? `\npolicy pack output:\n${output.slice(-2000)}` : '';
      throw new PolicyPackError(`policy pack ${this.label}: ${op} failed: ${grpcMessage(err)}${hint}`);
    }
  }

  /** Runs `fn`; an unimplemented method gives `fallback`. */
  private async optional<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (hasCode(err, grpc.status.UNIMPLEMENTED)) return fallback;
      throw err;
    }
  }

  /** Handshake (optional, as for providers). */
  async handshake(engineAddress: string, packDir: string): Promise<void> {
    const req = new anproto.AnalyzerHandshakeRequest();
    req.setEngineAddress(engineAddress);
    req.setRootDirectory(packDir);
    req.setProgramDirectory(packDir);
    await this.optional(() => this.call('Handshake', this.client.handshake, req), undefined);
  }

  /** ConfigureStack (optional): the stack, its configuration and whether this is a preview. */
  async configureStack(s: StackSettings): Promise<void> {
    const req = new anproto.AnalyzerStackConfigureRequest();
    req.setStack(s.stack);
    req.setProject(s.project);
    req.setOrganization(s.organization);
    req.setDryRun(s.dryRun);
    req.setConfigSecretKeysList(s.configSecretKeys);
    for (const [k, v] of Object.entries(s.config)) req.getConfigMap().set(k, v);
    for (const [k, v] of Object.entries(s.tags ?? {})) req.getTagsMap().set(k, v);
    await this.optional(() => this.call('ConfigureStack', this.client.configureStack, req), undefined);
  }

  /** GetPluginInfo: the pack's version, if it says. */
  async pluginVersion(): Promise<string> {
    const res = await this.optional(() => this.call('GetPluginInfo', this.client.getPluginInfo, new emptyproto.Empty()), undefined);
    return res?.getVersion() ?? '';
  }

  /** GetAnalyzerInfo, cached; `enforcementLevel` joins each policy's config schema when the pack takes config. */
  async analyzerInfo(): Promise<AnalyzerInfo> {
    if (this.info) return this.info;
    const res = await this.call('GetAnalyzerInfo', this.client.getAnalyzerInfo, new emptyproto.Empty());
    const supportsConfig = res.getSupportsconfig();
    const policies = res.getPoliciesList().map((p) => {
      const schema = p.getConfigschema();
      const severity = SEVERITY_OF[p.getSeverity()];
      if (severity) this.severities.set(p.getName(), severity);
      return {
        name: p.getName(),
        displayName: p.getDisplayname(),
        description: p.getDescription(),
        message: p.getMessage(),
        enforcementLevel: this.level(p.getEnforcementlevel()),
        type: POLICY_TYPE_OF[p.getPolicyType()] ?? 'unknown',
        configSchema: supportsConfig
          ? {
              properties: { ...(fromStruct(schema?.getProperties()) as Record<string, Record<string, unknown>>), enforcementLevel: { type: 'string', enum: [...ENFORCEMENT_LEVELS] } },
              required: schema?.getRequiredList() ?? [],
            }
          : undefined,
      };
    });
    policies.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const initialConfig: Record<string, PolicyConfigEntry> = {};
    for (const [name, c] of res.getInitialconfigMap().entries()) {
      initialConfig[name] = { enforcementLevel: this.level(c.getEnforcementlevel()), properties: (c.getProperties()?.toJavaScript() ?? {}) as Record<string, unknown> };
    }
    if (!res.getName()) throw new PolicyPackError(`policy pack ${this.label}: GetAnalyzerInfo answered no pack name`);
    this.info = { name: res.getName(), displayName: res.getDisplayname(), version: this.yamlVersion || res.getVersion(), supportsConfig, policies, initialConfig };
    return this.info;
  }

  /** Configure: each policy's enforcement level and properties; the cached info takes the new levels. */
  async configure(config: Record<string, PolicyConfigEntry>): Promise<void> {
    if (Object.keys(config).length === 0) return;
    const req = new anproto.ConfigureAnalyzerRequest();
    for (const [name, c] of Object.entries(config)) {
      const pc = new anproto.PolicyConfig();
      pc.setEnforcementlevel(levelToProto(c.enforcementLevel));
      pc.setProperties(structproto.Struct.fromJavaScript(c.properties as Parameters<typeof structproto.Struct.fromJavaScript>[0]));
      req.getPolicyconfigMap().set(name, pc);
    }
    await this.call('Configure', this.client.configure, req);
    for (const p of this.info?.policies ?? []) if (config[p.name]) p.enforcementLevel = config[p.name].enforcementLevel;
  }

  /** Analyze one resource's inputs. */
  async analyze(r: AnalyzerResource): Promise<AnalyzerAnswer<PolicyDiagnostic>> {
    const res = await this.call(`Analyze(${r.type})`, this.client.analyze, analyzeRequest(r, true));
    return { results: res.getDiagnosticsList().map((d) => this.diagnostic(d)), notApplicable: res.getNotApplicableList().map((n) => n.getPolicyName()) };
  }

  /** AnalyzeStack over every resource's outputs (unimplemented: nothing to report). */
  async analyzeStack(resources: readonly AnalyzerStackResource[]): Promise<AnalyzerAnswer<PolicyDiagnostic>> {
    const req = new anproto.AnalyzeStackRequest();
    req.setResourcesList(resources.map(stackResource));
    const res = await this.optional(() => this.call('AnalyzeStack', this.client.analyzeStack, req), undefined);
    return { results: res?.getDiagnosticsList().map((d) => this.diagnostic(d)) ?? [], notApplicable: res?.getNotApplicableList().map((n) => n.getPolicyName()) ?? [] };
  }

  /** Remediate one resource's inputs (unimplemented: nothing to change). Internal keys are kept, as in Pulumi. */
  async remediate(r: AnalyzerResource): Promise<AnalyzerAnswer<PolicyRemediation>> {
    const res = await this.optional(() => this.call(`Remediate(${r.type})`, this.client.remediate, analyzeRequest(r, false)), undefined);
    const notApplicable = res?.getNotApplicableList().map((n) => n.getPolicyName()) ?? [];
    const results = (res?.getRemediationsList() ?? []).map((x) => ({
      policyName: x.getPolicyname(),
      policyPackName: x.getPolicypackname(),
      policyPackVersion: this.yamlVersion || x.getPolicypackversion(),
      description: x.getDescription(),
      properties: x.hasProperties() ? fromStruct(x.getProperties()) : undefined,
      diagnostic: x.getDiagnostic(),
    }));
    return { results, notApplicable };
  }

  private diagnostic(d: ProtoDiagnostic): PolicyDiagnostic {
    return {
      policyName: d.getPolicyname(),
      policyPackName: d.getPolicypackname(),
      policyPackVersion: this.yamlVersion || d.getPolicypackversion(),
      description: d.getDescription(),
      message: d.getMessage(),
      enforcementLevel: this.level(d.getEnforcementlevel()),
      urn: d.getUrn(),
      severity: SEVERITY_OF[d.getSeverity()] ?? this.severities.get(d.getPolicyname()) ?? '',
    };
  }

  private level(n: number): EnforcementLevel {
    const level = LEVEL_OF[n];
    if (!level) throw new PolicyPackError(`policy pack ${this.label}: invalid enforcement level ${n}`);
    return level;
  }

  /** Stops the pack's process. */
  async close(): Promise<void> {
    this.client.close();
    await this.proc.kill();
  }
}

function levelToProto(level: EnforcementLevel): number {
  switch (level) {
    case 'advisory':
      return anproto.EnforcementLevel.ADVISORY;
    case 'mandatory':
      return anproto.EnforcementLevel.MANDATORY;
    case 'remediate':
      return anproto.EnforcementLevel.REMEDIATE;
    case 'disabled':
      return anproto.EnforcementLevel.DISABLED;
  }
}

/** Pulumi's MarshalProperties with KeepUnknowns and KeepSecrets; `skipInternal` drops `__` keys. */
function marshal(props: PropertyMap, skipInternal: boolean): InstanceType<typeof structproto.Struct> {
  const resolved = resolveOutputValues(props);
  const kept: PropertyMap = {};
  for (const [k, v] of Object.entries(resolved)) if (!(skipInternal && k.startsWith('__'))) kept[k] = v as PropertyValue;
  return toStruct(kept);
}

function options(r: AnalyzerResource): InstanceType<typeof anproto.AnalyzerResourceOptions> {
  const o = new anproto.AnalyzerResourceOptions();
  o.setProtect(r.options.protect);
  o.setIgnorechangesList(r.options.ignoreChanges);
  o.setDeletebeforereplace(r.options.deleteBeforeReplace ?? false);
  o.setDeletebeforereplacedefined(r.options.deleteBeforeReplace !== undefined);
  o.setAdditionalsecretoutputsList(r.options.additionalSecretOutputs);
  o.setAliasesList(r.options.aliases);
  const t = new anproto.AnalyzerResourceOptions.CustomTimeouts();
  t.setCreate(r.options.customTimeouts?.create ?? 0);
  t.setUpdate(r.options.customTimeouts?.update ?? 0);
  t.setDelete(r.options.customTimeouts?.delete ?? 0);
  o.setCustomtimeouts(t);
  o.setParent(r.options.parent);
  return o;
}

function provider(r: AnalyzerResource): InstanceType<typeof anproto.AnalyzerProviderResource> | undefined {
  if (!r.provider) return undefined;
  const p = new anproto.AnalyzerProviderResource();
  p.setUrn(r.provider.urn);
  p.setType(r.provider.type);
  p.setName(r.provider.name);
  p.setProperties(marshal(r.provider.properties, true));
  return p;
}

/** The setters AnalyzeRequest and AnalyzerResource share. */
interface ResourceMessage {
  setUrn(v: string): unknown;
  setType(v: string): unknown;
  setName(v: string): unknown;
  setProperties(v?: InstanceType<typeof structproto.Struct>): unknown;
  setOptions(v?: InstanceType<typeof anproto.AnalyzerResourceOptions>): unknown;
  setProvider(v?: InstanceType<typeof anproto.AnalyzerProviderResource>): unknown;
}

/** Fills what every analyzer message says of a resource. */
function describeResource<T extends ResourceMessage>(msg: T, r: AnalyzerResource, skipInternal: boolean): T {
  msg.setUrn(r.urn);
  msg.setType(r.type);
  msg.setName(r.name);
  msg.setProperties(marshal(r.properties, skipInternal));
  msg.setOptions(options(r));
  const p = provider(r);
  if (p) msg.setProvider(p);
  return msg;
}

function analyzeRequest(r: AnalyzerResource, skipInternal: boolean): InstanceType<typeof anproto.AnalyzeRequest> {
  return describeResource(new anproto.AnalyzeRequest(), r, skipInternal);
}

function stackResource(r: AnalyzerStackResource): ProtoResource {
  const res = describeResource(new anproto.AnalyzerResource(), r, true);
  res.setParent(r.parent);
  res.setDependenciesList(r.dependencies);
  for (const [key, urns] of Object.entries(r.propertyDependencies)) {
    if (!urns.length) continue;
    const deps = new anproto.AnalyzerPropertyDependencies();
    deps.setUrnsList(urns);
    res.getPropertydependenciesMap().set(key, deps);
  }
  return res;
}
