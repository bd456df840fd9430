/**
 * The gRPC endpoint a program talks to: `pulumirpc.ResourceMonitor` and `pulumirpc.Engine` on one port. It decodes
 * requests, applies transforms, and hands registrations to the step executor.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import type { DiagEvent, EngineEvents } from '../display/events.js';
import { ENGINE_GRPC_OPTIONS, grpcError } from '../rpc/grpc-util.js';
import { emptyproto, engproto, engrpc, grpc, provproto, resproto, resrpc } from '../rpc/proto.js';
import { fromStruct, toStruct, stripSecrets, downgradeResourceRefs, type PropertyMap } from '../resource/properties.js';
import { parseDurationSeconds } from '../go-formats/durations.js';
import type { StepExecutor } from '../steps/step-executor.js';
import { ShuttingDownError, StepError, type AliasSpec, type RegisterGoal } from '../steps/step-types.js';
import { CallbackInvoker, type CallbackRef } from './transforms.js';
import { STACK_TYPE } from '../resource/urn.js';
import { callComponentMethod } from './call.js';
import type { ComponentRunInfo } from './component-info.js';
import { RemoteComponents } from './construct.js';
import { deploymentInfo } from './deployment-info.js';
import { supportsFeature } from './features.js';
import { hookBindingOf } from './hook-options.js';
import { InvokeTransforms } from './invoke-transforms.js';
import { PackageRefs } from './packages.js';
import { ResourceHookRegistry } from './resource-hooks.js';

type RegisterRequest = InstanceType<typeof resproto.RegisterResourceRequest>;

const SEVERITIES: DiagEvent['severity'][] = ['debug', 'info', 'warning', 'error'];

/** What the host needs from its owner. */
export interface ProgramHostOptions {
  executor: StepExecutor;
  events: EngineEvents;
  /** Runs at SignalAndWaitForShutdown (deletes); the program blocks until it settles. */
  onShutdown: () => Promise<void>;
  /** The project root; source positions under it are recorded as `project:///<path>`, as Pulumi does. */
  rootDir?: string;
  /** The deployment as component providers are told about it (Construct, Call). */
  componentInfo: Omit<ComponentRunInfo, 'monitorAddress'>;
  /** Where RegisterResourceHook and RegisterErrorHook put the program's hooks (the step executor runs them). */
  hooks?: ResourceHookRegistry;
}

/** A listening program host. */
export class ProgramHost {
  /** True once the program logged an error. */
  programErrored = false;
  /** True once SignalAndWaitForShutdown arrived. */
  shutdownSignalled = false;
  rootUrn = '';

  private readonly server = new grpc.Server(ENGINE_GRPC_OPTIONS);
  private readonly stackTransforms: CallbackRef[] = [];
  private readonly resourceTransforms = new Map<string, CallbackRef[]>();
  private readonly callbacks = new CallbackInvoker();
  private readonly invokeTransforms = new InvokeTransforms(this.callbacks);
  private readonly hooks: ResourceHookRegistry;
  private parentOf = new Map<string, string>();
  private port = 0;
  private readonly components: RemoteComponents;
  private readonly componentInfo: ComponentRunInfo;
  private readonly packages = new PackageRefs();

  constructor(private readonly o: ProgramHostOptions) {
    this.componentInfo = { ...o.componentInfo, monitorAddress: () => this.address };
    this.components = new RemoteComponents(o.executor, this.componentInfo, this.packages);
    this.hooks = o.hooks ?? new ResourceHookRegistry();
  }

  /** `127.0.0.1:<port>` once started. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Binds a free local port. */
  async start(): Promise<void> {
    this.server.addService(resrpc.ResourceMonitorService, this.monitorHandlers());
    this.server.addService(engrpc.EngineService, this.engineHandlers());
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
  }

  /** Stops serving. */
  async stop(): Promise<void> {
    this.callbacks.close();
    this.hooks.close();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }

  private unary<Req, Res>(fn: (req: Req) => Promise<Res>): grpcTypes.handleUnaryCall<Req, Res> {
    return (call, cb) => {
      fn(call.request).then(
        (res) => cb(null, res),
        (err: unknown) => {
          if (err instanceof ShuttingDownError || err instanceof StepError || this.o.executor.failed) {
            // the SDK goes quiet on UNAVAILABLE; the engine has already reported the failure
            cb(grpcError(grpc.status.UNAVAILABLE, 'resource monitor shut down'));
          } else {
            cb(grpcError(grpc.status.UNKNOWN, err instanceof Error ? err.message : String(err)));
          }
        },
      );
    };
  }

  private monitorHandlers(): grpcTypes.UntypedServiceImplementation {
    const ex = this.o.executor;
    return {
      supportsFeature: this.unary(async (req: InstanceType<typeof resproto.SupportsFeatureRequest>) =>
        new resproto.SupportsFeatureResponse().setHassupport(supportsFeature(req.getId()))),
      registerResource: this.unary((req: RegisterRequest) => this.registerResource(req)),
      registerResourceOutputs: this.unary(async (req: InstanceType<typeof resproto.RegisterResourceOutputsRequest>) => {
        await ex.registerOutputs(req.getUrn(), fromStruct(req.getOutputs()));
        return new emptyproto.Empty();
      }),
      readResource: this.unary(async (req: InstanceType<typeof resproto.ReadResourceRequest>) => {
        const { urn, outputs } = await ex.read({
          type: req.getType(),
          name: req.getName(),
          id: req.getId(),
          parent: req.getParent() || undefined,
          inputs: fromStruct(req.getProperties()),
          provider: req.getProvider() || undefined,
          version: req.getVersion() || undefined,
          package: this.packages.resolve(req.getPackageref()),
          dependencies: req.getDependenciesList(),
          additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        });
        return new resproto.ReadResourceResponse().setUrn(urn).setProperties(toStruct(forCaller(outputs, req.getAcceptsecrets(), req.getAcceptresources())));
      }),
      invoke: this.unary(async (req: InstanceType<typeof resproto.ResourceInvokeRequest>) => {
        await this.invokeTransforms.apply(req);
        const { result, failures } = await ex.invoke(req.getTok(), fromStruct(req.getArgs()), req.getProvider() || undefined, req.getVersion() || undefined, this.packages.resolve(req.getPackageref()));
        const res = new provproto.InvokeResponse().setReturn(toStruct(forCaller(result, true, req.getAcceptresources())));
        for (const f of failures) res.addFailures(new provproto.CheckFailure().setProperty(f.property).setReason(f.reason));
        return res;
      }),
      registerStackTransform: this.unary(async (req: { getTarget(): string; getToken(): string }) => {
        this.stackTransforms.push({ target: req.getTarget(), token: req.getToken() });
        return new emptyproto.Empty();
      }),
      signalAndWaitForShutdown: this.unary(async () => {
        this.shutdownSignalled = true;
        await this.o.onShutdown();
        return new emptyproto.Empty();
      }),
      getDeploymentInfo: this.unary(async () => deploymentInfo(this.o.componentInfo)),
      call: this.unary((req: InstanceType<typeof resproto.ResourceCallRequest>) => callComponentMethod(ex, this.componentInfo, req, this.packages.resolve(req.getPackageref()))),
      registerStackInvokeTransform: this.unary((req: { getTarget(): string; getToken(): string }) => this.invokeTransforms.register(req)),
      registerResourceHook: this.unary((req: InstanceType<typeof resproto.RegisterResourceHookRequest>) => this.hooks.registerResourceHook(req)),
      registerErrorHook: this.unary((req: InstanceType<typeof resproto.RegisterErrorHookRequest>) => this.hooks.registerErrorHook(req)),
      registerPackage: this.unary(async (req: InstanceType<typeof resproto.RegisterPackageRequest>) => this.packages.register(req)),
    };
  }

  private engineHandlers(): grpcTypes.UntypedServiceImplementation {
    return {
      log: (call: grpcTypes.ServerUnaryCall<InstanceType<typeof engproto.LogRequest>, unknown>, cb: grpcTypes.sendUnaryData<unknown>) => {
        const req = call.request;
        const severity = SEVERITIES[req.getSeverity()] ?? 'info';
        if (severity === 'error') this.programErrored = true;
        this.o.events.diag?.({ severity, message: req.getMessage(), urn: req.getUrn() || undefined });
        cb(null, new emptyproto.Empty());
      },
      getRootResource: (_c: unknown, cb: grpcTypes.sendUnaryData<unknown>) => cb(null, new engproto.GetRootResourceResponse().setUrn(this.rootUrn)),
      setRootResource: (call: grpcTypes.ServerUnaryCall<InstanceType<typeof engproto.SetRootResourceRequest>, unknown>, cb: grpcTypes.sendUnaryData<unknown>) => {
        this.rootUrn = call.request.getUrn();
        cb(null, new engproto.SetRootResourceResponse());
      },
      requirePulumiVersion: (_c: unknown, cb: grpcTypes.sendUnaryData<unknown>) => cb(null, new engproto.RequirePulumiVersionResponse()),
      startDebugging: (_c: unknown, cb: grpcTypes.sendUnaryData<unknown>) => cb(null, new emptyproto.Empty()),
    };
  }

  private transformsFor(req: RegisterRequest, own: CallbackRef[]): CallbackRef[] {
    if (req.getType() === STACK_TYPE) return [];
    const inherited: CallbackRef[] = [];
    for (let p = req.getParent(); p; p = this.parentOf.get(p) ?? '') inherited.push(...(this.resourceTransforms.get(p) ?? []));
    return [...own, ...inherited, ...this.stackTransforms];
  }

  private async registerResource(req: RegisterRequest): Promise<InstanceType<typeof resproto.RegisterResourceResponse>> {
    this.components.inheritProvider(req);
    const own = this.components.ownTransforms(req, req.getTransformsList().map((c) => ({ target: c.getTarget(), token: c.getToken() })));
    const transforms = this.transformsFor(req, own);
    if (transforms.length) await this.callbacks.applyTransforms(req, transforms);
    if (req.getRemote()) {
      const res = await this.components.construct(req);
      if (own.length) this.resourceTransforms.set(res.getUrn(), own);
      return res;
    }
    const goal = { ...goalOf(req, this.o.rootDir), package: this.packages.resolve(req.getPackageref()) };
    const res = await this.o.executor.register(goal);
    if (goal.parent) this.parentOf.set(res.urn, goal.parent);
    if (own.length) this.resourceTransforms.set(res.urn, own);
    this.components.noteComponent(res.urn, req);
    const out = new resproto.RegisterResourceResponse().setUrn(res.urn).setId(res.id);
    out.setObject(toStruct(forCaller(res.outputs, req.getAcceptsecrets(), req.getAcceptresources())));
    out.setResult(res.result === 'skip' ? resproto.Result.SKIP : res.result === 'fail' ? resproto.Result.FAIL : resproto.Result.SUCCESS);
    return out;
  }
}

/** Applies the caller's `acceptSecrets`/`acceptResources` to values sent back. */
function forCaller(m: PropertyMap, acceptSecrets: boolean, acceptResources: boolean): PropertyMap {
  let v = m;
  if (!acceptSecrets) v = stripSecrets(v);
  if (!acceptResources) v = downgradeResourceRefs(v);
  return v;
}

function goalOf(req: RegisterRequest, rootDir: string | undefined): RegisterGoal {
  const propertyDependencies: Record<string, string[]> = {};
  req.getPropertydependenciesMap().forEach((v, k) => {
    const urns = v.getUrnsList();
    if (urns.length) propertyDependencies[k] = urns;
  });
  const aliasSpecs: AliasSpec[] = [];
  const aliasUrns: string[] = [...req.getAliasurnsList()];
  for (const a of req.getAliasesList()) {
    const spec = a.getSpec();
    if (spec) {
      aliasSpecs.push({
        name: spec.getName() || undefined,
        type: spec.getType() || undefined,
        stack: spec.getStack() || undefined,
        project: spec.getProject() || undefined,
        parentUrn: spec.hasParenturn() ? spec.getParenturn() || undefined : undefined,
        noParent: spec.hasNoparent() ? spec.getNoparent() : undefined,
      });
    } else if (a.getUrn()) aliasUrns.push(a.getUrn());
  }
  const ct = req.getCustomtimeouts();
  const timeouts = ct ? { create: parseDurationSeconds(ct.getCreate()), update: parseDurationSeconds(ct.getUpdate()), delete: parseDurationSeconds(ct.getDelete()) } : undefined;
  const sp = req.getSourceposition();
  return {
    type: req.getType(),
    name: req.getName(),
    parent: req.getParent() || undefined,
    custom: req.getCustom(),
    inputs: fromStruct(req.getObject()),
    protect: req.hasProtect() ? req.getProtect() : undefined,
    dependencies: [...new Set(req.getDependenciesList())],
    propertyDependencies,
    provider: req.getProvider() || undefined,
    version: req.getVersion() || undefined,
    pluginDownloadURL: req.getPlugindownloadurl() || undefined,
    deleteBeforeReplace: req.getDeletebeforereplacedefined() || req.getDeletebeforereplace() ? req.getDeletebeforereplace() : undefined,
    ignoreChanges: req.getIgnorechangesList(),
    replaceOnChanges: req.getReplaceonchangesList(),
    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    aliasSpecs,
    aliasUrns,
    customTimeouts: timeouts && (timeouts.create || timeouts.update || timeouts.delete) ? timeouts : undefined,
    retainOnDelete: req.hasRetainondelete() ? req.getRetainondelete() : undefined,
    deletedWith: req.getDeletedwith() || undefined,
    importId: req.getImportid() || undefined,
    sourcePosition: sp && sp.getUri() ? `${projectUri(sp.getUri(), rootDir)}#${sp.getLine()},${sp.getColumn()}` : undefined,
    hooks: hookBindingOf(req.getHooks()),
  };
}

function projectUri(uri: string, rootDir: string | undefined): string {
  const prefix = rootDir ? `file://${rootDir.replace(/\/+$/, '')}/` : undefined;
  return prefix && uri.startsWith(prefix) ? `project:///${uri.slice(prefix.length)}` : uri;
}
