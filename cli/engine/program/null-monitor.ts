/**
 * A resource monitor that answers every request at once without providers or state. Benchmarks run a program
 * against it to measure the program's own cost, the baseline for engine overhead. It answers `SupportsFeature` as
 * the engine does, so the SDK takes the same paths in both; transforms, hooks and packages are accepted, not applied.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import { emptyproto, engproto, engrpc, grpc, provproto, resproto, resrpc } from '../rpc/proto.js';
import { createUrn } from '../resource/urn.js';
import { supportedMonitorFeatures, supportsFeature } from './features.js';

/** Starts the null monitor (Engine service included); returns its address and a stop function. */
export async function startNullMonitor(stack: string, project: string): Promise<{ address: string; stop(): Promise<void>; registrations(): number }> {
  const server = new grpc.Server();
  let count = 0;
  const ok = <T>(value: T) => (_call: unknown, cb: grpcTypes.sendUnaryData<T>) => cb(null, value);
  server.addService(resrpc.ResourceMonitorService, {
    supportsFeature: (call: grpcTypes.ServerUnaryCall<InstanceType<typeof resproto.SupportsFeatureRequest>, unknown>, cb: grpcTypes.sendUnaryData<unknown>) =>
      cb(null, new resproto.SupportsFeatureResponse().setHassupport(supportsFeature(call.request.getId()))),
    getDeploymentInfo: ok(new resproto.DeploymentInfo().setStack(stack).setProject(project).setOrganization('organization').setSupportedfeaturesList(supportedMonitorFeatures())),
    registerStackTransform: ok(new emptyproto.Empty()),
    registerStackInvokeTransform: ok(new emptyproto.Empty()),
    registerResourceHook: ok(new emptyproto.Empty()),
    registerErrorHook: ok(new emptyproto.Empty()),
    registerPackage: ok(new resproto.RegisterPackageResponse().setRef('null-monitor-package')),
    registerResource: (call: grpcTypes.ServerUnaryCall<InstanceType<typeof resproto.RegisterResourceRequest>, unknown>, cb: grpcTypes.sendUnaryData<unknown>) => {
      count++;
      const r = call.request;
      const urn = createUrn(stack, project, r.getParent() || undefined, r.getType(), r.getName());
      const res = new resproto.RegisterResourceResponse().setUrn(urn).setId(r.getCustom() ? `${r.getName()}-id` : '');
      if (r.getObject()) res.setObject(r.getObject());
      cb(null, res);
    },
    registerResourceOutputs: ok(new emptyproto.Empty()),
    readResource: (_c: unknown, cb: grpcTypes.sendUnaryData<unknown>) => cb(null, new resproto.ReadResourceResponse()),
    invoke: (_c: unknown, cb: grpcTypes.sendUnaryData<unknown>) => cb(null, new provproto.InvokeResponse()),
    signalAndWaitForShutdown: ok(new emptyproto.Empty()),
  });
  server.addService(engrpc.EngineService, {
    log: ok(new emptyproto.Empty()),
    setRootResource: ok(new engproto.SetRootResourceResponse()),
    getRootResource: ok(new engproto.GetRootResourceResponse()),
    requirePulumiVersion: ok(new engproto.RequirePulumiVersionResponse()),
    startDebugging: ok(new emptyproto.Empty()),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    registrations: () => count,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
