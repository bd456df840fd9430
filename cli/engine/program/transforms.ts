/**
 * Resource transforms: the engine calls back into the program (`Callbacks.Invoke` with a `TransformRequest`) and
 * applies the returned properties and options to the registration.
 */
import { callUnary } from '../rpc/grpc-util.js';
import { cbproto, cbrpc, grpc, resproto } from '../rpc/proto.js';
import { toStruct } from '../resource/properties.js';

type RegisterRequest = InstanceType<typeof resproto.RegisterResourceRequest>;

/** A callback registered by the program. */
export interface CallbackRef {
  target: string;
  token: string;
}

/** Calls program-side callbacks, one client per callback server. */
export class CallbackInvoker {
  private readonly clients = new Map<string, InstanceType<typeof cbrpc.CallbacksClient>>();

  private client(target: string): InstanceType<typeof cbrpc.CallbacksClient> {
    let c = this.clients.get(target);
    if (!c) {
      c = new cbrpc.CallbacksClient(target, grpc.credentials.createInsecure());
      this.clients.set(target, c);
    }
    return c;
  }

  /**
   * Invokes one callback with a serialized request and returns its serialized response. Without `timeoutMs` the
   * call waits as long as the program's callback takes (hooks run user code), as Pulumi's engine does.
   */
  async call(cb: CallbackRef, request: Uint8Array, timeoutMs = Infinity): Promise<Uint8Array> {
    const inv = new cbproto.CallbackInvokeRequest();
    inv.setToken(cb.token).setRequest(request);
    const c = this.client(cb.target);
    const res = await callUnary(c.invoke, c, inv, timeoutMs);
    return res.getResponse_asU8();
  }

  /** Runs the transforms in order; each sees the previous one's result. Mutates and returns `req`. */
  async applyTransforms(req: RegisterRequest, callbacks: readonly CallbackRef[]): Promise<RegisterRequest> {
    for (const cb of callbacks) {
      const treq = new resproto.TransformRequest();
      treq.setType(req.getType()).setName(req.getName()).setCustom(req.getCustom()).setParent(req.getParent());
      treq.setProperties(req.getObject() ?? toStruct({}));
      treq.setOptions(optionsOf(req));
      const tres = resproto.TransformResponse.deserializeBinary(await this.call(cb, treq.serializeBinary(), 60_000));
      if (tres.hasProperties()) req.setObject(tres.getProperties());
      const opts = tres.getOptions();
      if (opts) applyOptions(req, opts);
    }
    return req;
  }

  /** Closes every client. */
  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}

function optionsOf(req: RegisterRequest): InstanceType<typeof resproto.TransformResourceOptions> {
  const o = new resproto.TransformResourceOptions();
  o.setDependsOnList(req.getDependenciesList());
  if (req.hasProtect()) o.setProtect(req.getProtect()!);
  o.setIgnoreChangesList(req.getIgnorechangesList());
  o.setReplaceOnChangesList(req.getReplaceonchangesList());
  o.setVersion(req.getVersion());
  o.setAliasesList(req.getAliasesList());
  o.setProvider(req.getProvider());
  if (req.hasCustomtimeouts()) o.setCustomTimeouts(req.getCustomtimeouts());
  o.setPluginDownloadUrl(req.getPlugindownloadurl());
  if (req.hasRetainondelete()) o.setRetainOnDelete(req.getRetainondelete()!);
  o.setDeletedWith(req.getDeletedwith());
  if (req.getDeletebeforereplacedefined()) o.setDeleteBeforeReplace(req.getDeletebeforereplace());
  o.setAdditionalSecretOutputsList(req.getAdditionalsecretoutputsList());
  for (const [k, v] of req.getProvidersMap().toArray()) o.getProvidersMap().set(k, v);
  if (req.hasHooks()) o.setHooks(req.getHooks());
  return o;
}

function applyOptions(req: RegisterRequest, o: InstanceType<typeof resproto.TransformResourceOptions>): void {
  req.setDependenciesList(o.getDependsOnList());
  if (o.hasProtect()) req.setProtect(o.getProtect()!);
  req.setIgnorechangesList(o.getIgnoreChangesList());
  req.setReplaceonchangesList(o.getReplaceOnChangesList());
  req.setVersion(o.getVersion());
  req.setAliasesList(o.getAliasesList());
  req.setProvider(o.getProvider());
  if (o.hasCustomTimeouts()) req.setCustomtimeouts(o.getCustomTimeouts());
  req.setPlugindownloadurl(o.getPluginDownloadUrl());
  if (o.hasRetainOnDelete()) req.setRetainondelete(o.getRetainOnDelete()!);
  req.setDeletedwith(o.getDeletedWith());
  if (o.hasDeleteBeforeReplace()) {
    req.setDeletebeforereplace(o.getDeleteBeforeReplace()!);
    req.setDeletebeforereplacedefined(true);
  }
  req.setAdditionalsecretoutputsList(o.getAdditionalSecretOutputsList());
  // as Pulumi: the transformed options replace the registration's, hooks included
  req.setHooks(o.getHooks());
}
