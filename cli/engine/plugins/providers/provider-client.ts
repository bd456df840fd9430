/**
 * A client for one running provider plugin (`pulumirpc.ResourceProvider`). It owns the protocol fallbacks
 * (Handshake and CheckConfig may be unimplemented), a deadline on every call, and the secrets rules: providers that
 * do not accept secrets get plain values, and their outputs are re-marked secret where inputs were.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import { callUnary, ENGINE_GRPC_OPTIONS, grpcMessage, hasCode } from '../../rpc/grpc-util.js';
import type { DetailedDiff, DiffKind } from '../../display/events.js';
import { launchPlugin, type PluginCommand, type PluginProcess } from '../plugin-host.js';
import { componentCallError } from './component-call-error.js';
import {
  annotateSecrets,
  downgradeResourceRefs,
  fromStruct,
  resolveOutputValues,
  stripSecrets,
  toStruct,
  UNKNOWN,
  type PropertyMap,
} from '../../resource/properties.js';
import { emptyproto, grpc, provproto, provrpc, statusproto } from '../../rpc/proto.js';

type Client = InstanceType<typeof provrpc.ResourceProviderClient>;
type ConstructRequest = InstanceType<typeof provproto.ConstructRequest>;
type ConstructResponse = InstanceType<typeof provproto.ConstructResponse>;
type CallRequest = InstanceType<typeof provproto.CallRequest>;
type CallResponse = InstanceType<typeof provproto.CallResponse>;

/** A validation failure reported by Check/CheckConfig. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Check failures as one line: `property: reason; …`. */
export function formatCheckFailures(failures: readonly CheckFailure[]): string {
  return failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join('; ');
}

/** Result of Diff. */
export interface DiffResult {
  changes: 'unknown' | 'none' | 'some';
  replaces: string[];
  deleteBeforeReplace: boolean;
  changedKeys: string[];
  /** The detailed diff, when the provider gave one (`hasDetailedDiff`). */
  detailedDiff?: DetailedDiff;
}

/** The resource was created (or updated) but did not fully initialise; its state must still be recorded. */
export class ResourceInitError extends Error {
  override readonly name = 'ResourceInitError';
  constructor(message: string, readonly id: string, readonly outputs: PropertyMap, readonly reasons: string[]) {
    super(message);
  }
}

/** A provider call failed; the message names the provider and operation. */
export class ProviderCallError extends Error {
  override readonly name = 'ProviderCallError';
  /** The provider's own message, without the plugin and operation: what Pulumi's engine hands error hooks. */
  readonly reason?: string;
  constructor(message: string, reason?: string) {
    super(message);
    this.reason = reason;
  }
}

/** Deadlines for provider calls. */
export interface ProviderTimeouts {
  /** Handshake, Check, Diff, Configure, Invoke … (default 2 minutes). */
  callMs: number;
  /** Create/Update/Delete/Read unless the resource has customTimeouts (default 20 minutes). */
  operationMs: number;
  /** Waiting for the plugin to print its port (default 30 s). */
  launchMs: number;
}

/** Default deadlines. */
export const DEFAULT_TIMEOUTS: ProviderTimeouts = { callMs: 120_000, operationMs: 20 * 60_000, launchMs: 30_000 };

/** `PropertyDiff.Kind` by its number, as Pulumi's events name it. */
const DIFF_KINDS: readonly DiffKind[] = ['add', 'add-replace', 'delete', 'delete-replace', 'update', 'update-replace'];

/** The detailed-diff kinds that mean a replacement. */
const REPLACE_KINDS: ReadonlySet<number> = new Set([provproto.PropertyDiff.Kind.ADD_REPLACE, provproto.PropertyDiff.Kind.DELETE_REPLACE, provproto.PropertyDiff.Kind.UPDATE_REPLACE]);

/** Identity of a resource in provider calls. */
export interface ResourceRef {
  urn: string;
  name: string;
  type: string;
}

/** A started, handshaken provider plugin. Call `configure` before resource operations. */
export class ProviderClient {
  acceptSecrets = false;
  acceptResources = false;
  acceptOutputs = false;
  supportsPreview = false;
  version = '';

  private constructor(
    private readonly client: Client,
    private readonly proc: PluginProcess,
    readonly label: string,
    private readonly timeouts: ProviderTimeouts,
  ) {}

  /** Launches the plugin and performs Handshake and GetPluginInfo. */
  static async start(
    cmd: PluginCommand,
    opts: { engineAddress: string; programDir: string; rootDir: string; env: NodeJS.ProcessEnv; timeouts?: ProviderTimeouts; onLog?: (line: string) => void; loggingArgs?: readonly string[] },
  ): Promise<ProviderClient> {
    const timeouts = opts.timeouts ?? DEFAULT_TIMEOUTS;
    const proc = await launchPlugin(cmd, { engineAddress: opts.engineAddress, cwd: opts.programDir, env: opts.env, timeoutMs: timeouts.launchMs, onLog: opts.onLog, loggingArgs: opts.loggingArgs });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${proc.port}`, grpc.credentials.createInsecure(), ENGINE_GRPC_OPTIONS);
    const p = new ProviderClient(client, proc, cmd.label, timeouts);
    try {
      await p.handshake(opts.engineAddress, opts.rootDir, opts.programDir);
      const info = await p.call('getPluginInfo', client.getPluginInfo, new emptyproto.Empty(), timeouts.callMs).catch(() => undefined);
      p.version = info?.getVersion() ?? '';
    } catch (err) {
      await p.close();
      throw err;
    }
    return p;
  }

  private async call<Req, Res>(
    op: string,
    method: (req: Req, md: grpcTypes.Metadata, o: Partial<grpcTypes.CallOptions>, cb: (e: grpcTypes.ServiceError | null, r: Res) => void) => grpcTypes.ClientUnaryCall,
    req: Req,
    timeoutMs: number,
  ): Promise<Res> {
    try {
      return await callUnary(method, this.client, req, timeoutMs);
    } catch (err) {
      if (hasCode(err, grpc.status.UNIMPLEMENTED)) throw err;
      const init = decodeInitError(err);
      if (init) throw init;
      const stderr = this.proc.output().trim();
      const hint = hasCode(err, grpc.status.UNAVAILABLE) && stderr ? `\nprovider output:\n${stderr.slice(-2000)}` : '';
      throw new ProviderCallError(`${this.label}: ${op} failed: ${grpcMessage(err)}${hint}`, grpcMessage(err));
    }
  }

  private async handshake(engineAddress: string, rootDir: string, programDir: string): Promise<void> {
    const req = new provproto.ProviderHandshakeRequest();
    req.setEngineAddress(engineAddress);
    req.setRootDirectory(rootDir);
    req.setProgramDirectory(programDir);
    req.setConfigureWithUrn(true);
    try {
      const res = await this.call('Handshake', this.client.handshake, req, this.timeouts.callMs);
      this.acceptSecrets = res.getAcceptSecrets();
      this.acceptResources = res.getAcceptResources();
      this.acceptOutputs = res.getAcceptOutputs();
    } catch (err) {
      if (!hasCode(err, grpc.status.UNIMPLEMENTED)) throw err;
    }
  }

  /** Prepares values for this provider's declared capabilities. */
  private outbound(m: PropertyMap): PropertyMap {
    let v = resolveOutputValues(m);
    if (!this.acceptSecrets) v = stripSecrets(v);
    if (!this.acceptResources) v = downgradeResourceRefs(v);
    return v;
  }

  /** CheckConfig; an unimplemented method accepts the inputs as they are. */
  async checkConfig(ref: ResourceRef, olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setOlds(toStruct(olds)).setNews(toStruct(news));
    try {
      const res = await this.call('CheckConfig', this.client.checkConfig, req, this.timeouts.callMs);
      return { inputs: res.hasInputs() ? fromStruct(res.getInputs()) : news, failures: failuresOf(res.getFailuresList()) };
    } catch (err) {
      if (hasCode(err, grpc.status.UNIMPLEMENTED)) return { inputs: news, failures: [] };
      throw err;
    }
  }

  /** Parameterize with a value (a package's parameterization); answers the sub-package the plugin now serves. */
  async parameterize(p: { name: string; version: string; value: Uint8Array }): Promise<{ name: string; version: string }> {
    const value = new provproto.ParameterizeRequest.ParametersValue().setName(p.name).setVersion(p.version).setValue(p.value);
    const res = await this.call('Parameterize', this.client.parameterize, new provproto.ParameterizeRequest().setValue(value), this.timeouts.callMs);
    return { name: res.getName(), version: res.getVersion() };
  }

  /** Configure, always with `args` (the dynamic provider hangs without them) and the legacy `variables` map. */
  async configure(ref: ResourceRef & { id: string }, inputs: PropertyMap, pkg: string): Promise<void> {
    const req = new provproto.ConfigureRequest();
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(stripSecrets(inputs))) {
      if (k === 'version' || v === null) continue;
      const key = `${pkg}:config:${k}`;
      if (typeof v === 'string') {
        if (v !== UNKNOWN) vars.set(key, v);
      } else vars.set(key, JSON.stringify(v));
    }
    req.setArgs(toStruct(inputs)).setAcceptsecrets(true).setAcceptresources(true).setSendsOldInputs(true).setSendsOldInputsToDelete(true);
    req.setId(ref.id).setUrn(ref.urn).setName(ref.name).setType(ref.type);
    const res = await this.call('Configure', this.client.configure, req, this.timeouts.callMs);
    this.acceptSecrets = res.getAcceptsecrets();
    this.acceptResources = res.getAcceptresources();
    this.acceptOutputs = res.getAcceptoutputs();
    this.supportsPreview = res.getSupportspreview();
  }

  /** Check: validates and fills in inputs. */
  async check(ref: ResourceRef, olds: PropertyMap, news: PropertyMap, randomSeed: Uint8Array): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setOlds(toStruct(this.outbound(olds))).setNews(toStruct(this.outbound(news)));
    req.setRandomseed(randomSeed);
    const res = await this.call('Check', this.client.check, req, this.timeouts.callMs);
    const inputs = res.hasInputs() ? fromStruct(res.getInputs()) : news;
    return { inputs: this.acceptSecrets ? inputs : annotateSecrets(inputs, news), failures: failuresOf(res.getFailuresList()) };
  }

  /** Diff between recorded outputs and new checked inputs. */
  async diff(ref: ResourceRef, id: string, oldOutputs: PropertyMap, oldInputs: PropertyMap, news: PropertyMap, ignoreChanges: readonly string[]): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setOlds(toStruct(this.outbound(oldOutputs))).setOldInputs(toStruct(this.outbound(oldInputs))).setNews(toStruct(this.outbound(news)));
    req.setIgnorechangesList([...ignoreChanges]);
    const res = await this.call('Diff', this.client.diff, req, this.timeouts.callMs);
    const kinds = { 0: 'unknown', 1: 'none', 2: 'some' } as const;
    const detailed: string[] = [];
    const detailedReplaces: string[] = [];
    const detailedDiff: DetailedDiff = {};
    res.getDetaileddiffMap().forEach((d, k) => {
      detailed.push(String(k));
      detailedDiff[String(k)] = { kind: DIFF_KINDS[d.getKind()] ?? 'update', inputDiff: d.getInputdiff() };
      // as Pulumi's DiffResult.Replace: a replace kind in the detailed diff replaces as a replace key does
      if (res.getHasdetaileddiff() && REPLACE_KINDS.has(d.getKind())) detailedReplaces.push(String(k));
    });
    return {
      changes: kinds[res.getChanges() as 0 | 1 | 2] ?? 'unknown',
      replaces: [...new Set([...res.getReplacesList(), ...detailedReplaces])],
      deleteBeforeReplace: res.getDeletebeforereplace(),
      changedKeys: res.getHasdetaileddiff() ? detailed : res.getDiffsList(),
      ...(res.getHasdetaileddiff() ? { detailedDiff } : {}),
    };
  }

  /** Create (or, in preview, a simulated create). */
  async create(ref: ResourceRef, inputs: PropertyMap, preview: boolean, timeoutSec?: number): Promise<{ id: string; outputs: PropertyMap }> {
    if (preview && !this.supportsPreview) return { id: '', outputs: inputs };
    const req = new provproto.CreateRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setProperties(toStruct(this.outbound(inputs))).setPreview(preview);
    if (timeoutSec) req.setTimeout(timeoutSec);
    const res = await this.call('Create', this.client.create, req, this.opTimeout(timeoutSec));
    const outputs = fromStruct(res.getProperties());
    return { id: res.getId(), outputs: this.acceptSecrets ? outputs : annotateSecrets(outputs, inputs) };
  }

  /** Update (or, in preview, a simulated update). */
  async update(ref: ResourceRef, id: string, oldOutputs: PropertyMap, oldInputs: PropertyMap, news: PropertyMap, ignoreChanges: readonly string[], preview: boolean, timeoutSec?: number): Promise<PropertyMap> {
    if (preview && !this.supportsPreview) return news;
    const req = new provproto.UpdateRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setOlds(toStruct(this.outbound(oldOutputs))).setOldInputs(toStruct(this.outbound(oldInputs))).setNews(toStruct(this.outbound(news)));
    req.setIgnorechangesList([...ignoreChanges]).setPreview(preview);
    if (timeoutSec) req.setTimeout(timeoutSec);
    const res = await this.call('Update', this.client.update, req, this.opTimeout(timeoutSec));
    const outputs = fromStruct(res.getProperties());
    return this.acceptSecrets ? outputs : annotateSecrets(outputs, news);
  }

  /** Delete. */
  async delete(ref: ResourceRef, id: string, outputs: PropertyMap, inputs: PropertyMap, timeoutSec?: number): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setProperties(toStruct(this.outbound(outputs))).setOldInputs(toStruct(this.outbound(inputs)));
    if (timeoutSec) req.setTimeout(timeoutSec);
    await this.call('Delete', this.client.delete, req, this.opTimeout(timeoutSec));
  }

  /** Read; `undefined` when the resource no longer exists. */
  async read(ref: ResourceRef, id: string, state: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap } | undefined> {
    const req = new provproto.ReadRequest();
    req.setUrn(ref.urn).setName(ref.name).setType(ref.type).setId(id);
    req.setProperties(toStruct(this.outbound(state))).setInputs(toStruct(this.outbound(inputs)));
    const res = await this.call('Read', this.client.read, req, this.timeouts.operationMs);
    if (!res.getId()) return undefined;
    let outputs = fromStruct(res.getProperties());
    let newInputs = res.hasInputs() ? fromStruct(res.getInputs()) : undefined;
    if (!this.acceptSecrets) {
      outputs = annotateSecrets(outputs, state);
      if (newInputs) newInputs = annotateSecrets(newInputs, inputs);
    }
    return { id: res.getId(), outputs, inputs: newInputs };
  }

  /** GetSchema: the package's schema as JSON text (`{}` from a provider that has none). */
  async getSchema(): Promise<string> {
    const req = new provproto.GetSchemaRequest();
    req.setVersion(0);
    const res = await this.call('GetSchema', this.client.getSchema, req, this.timeouts.callMs);
    return res.getSchema();
  }

  /** Invoke a provider function. */
  async invoke(tok: string, args: PropertyMap, preview: boolean): Promise<{ result: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.InvokeRequest();
    req.setTok(tok).setArgs(toStruct(this.outbound(args))).setPreview(preview);
    const res = await this.call('Invoke', this.client.invoke, req, this.timeouts.callMs);
    const result = fromStruct(res.getReturn());
    return { result: this.acceptSecrets ? result : annotateSecrets(result, args), failures: failuresOf(res.getFailuresList()) };
  }

  /**
   * Construct: the provider builds a component, registering it and its children with the monitor the request
   * names, so it lasts as long as their steps (the operation deadline, not the call deadline). A failure keeps the
   * provider's message and input property errors (`ComponentCallError`).
   */
  async construct(req: ConstructRequest): Promise<ConstructResponse> {
    return callUnary(this.client.construct, this.client, req, this.timeouts.operationMs).catch((err: unknown) => Promise.reject(componentCallError(err)));
  }

  /** Call: runs a component method, which may register resources too; failures as for `construct`. */
  async callMethod(req: CallRequest): Promise<CallResponse> {
    return callUnary(this.client.call, this.client, req, this.timeouts.operationMs).catch((err: unknown) => Promise.reject(componentCallError(err)));
  }

  private opTimeout(timeoutSec?: number): number {
    return timeoutSec ? timeoutSec * 1000 + 5_000 : this.timeouts.operationMs;
  }

  /** Closes the connection and stops the plugin. */
  async close(): Promise<void> {
    this.client.close();
    await this.proc.kill();
  }
}

function failuresOf(list: InstanceType<typeof provproto.CheckFailure>[]): CheckFailure[] {
  return list.map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
}

/** Reads `ErrorResourceInitFailed` from a gRPC error's status details, if present. */
function decodeInitError(err: unknown): ResourceInitError | undefined {
  const md = (err as { metadata?: grpcTypes.Metadata }).metadata;
  const raw = md?.get('grpc-status-details-bin')?.[0];
  if (!raw || typeof raw === 'string') return undefined;
  try {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(raw));
    for (const any of status.getDetailsList()) {
      if (!any.getTypeUrl().endsWith('pulumirpc.ErrorResourceInitFailed')) continue;
      const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return new ResourceInitError(
        `resource initialization failed: ${detail.getReasonsList().join('; ') || grpcMessage(err)}`,
        detail.getId(),
        detail.hasProperties() ? (detail.getProperties()!.toJavaScript() as PropertyMap) : {},
        detail.getReasonsList(),
      );
    }
  } catch {
    return undefined;
  }
  return undefined;
}
