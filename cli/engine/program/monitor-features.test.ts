import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgramHost } from './program-host.js';
import { startNullMonitor } from './null-monitor.js';
import { callUnary } from '../rpc/grpc-util.js';
import { emptyproto, grpc, resproto, resrpc } from '../rpc/proto.js';
import type { StepExecutor } from '../steps/step-executor.js';

type Monitor = InstanceType<typeof resrpc.ResourceMonitorClient>;

const IDS = [
  'secrets', 'resourceReferences', 'outputValues', 'aliasSpecs', 'deletedWith', 'replaceWith', 'replacementTrigger', 'transforms', 'invokeTransforms',
  'parameterization', 'resourceHooks', 'errorHooks', 'sendsOptionsToHooks', 'noSuchFeature',
];

function supports(m: Monitor, id: string): Promise<boolean> {
  return callUnary(m.supportsFeature, m, new resproto.SupportsFeatureRequest().setId(id), 5_000).then((r) => r.getHassupport());
}

describe('the null monitor agrees with the engine', () => {
  const componentInfo = { project: 'p', stack: 's', organization: 'o', config: {}, dryRun: false, parallel: 1 };
  const host = new ProgramHost({ executor: {} as StepExecutor, events: {}, onShutdown: async () => undefined, componentInfo });
  let nullMonitor: Awaited<ReturnType<typeof startNullMonitor>>;
  let engine: Monitor;
  let bench: Monitor;

  beforeAll(async () => {
    await host.start();
    nullMonitor = await startNullMonitor('s', 'p');
    engine = new resrpc.ResourceMonitorClient(host.address, grpc.credentials.createInsecure());
    bench = new resrpc.ResourceMonitorClient(nullMonitor.address, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    engine.close();
    bench.close();
    await host.stop();
    await nullMonitor.stop();
  });

  it('answers SupportsFeature as the engine does, so a benchmarked program takes the same SDK paths', async () => {
    const fromEngine = await Promise.all(IDS.map((id) => supports(engine, id)));
    const fromNull = await Promise.all(IDS.map((id) => supports(bench, id)));

    expect(fromNull).toEqual(fromEngine);
    expect(fromEngine[IDS.indexOf('parameterization')]).toBe(true);
    expect(['invokeTransforms', 'resourceHooks', 'errorHooks'].map((id) => fromEngine[IDS.indexOf(id)])).toEqual([true, true, true]);
  });

  it('answers GetDeploymentInfo with the same features and RegisterPackage with a reference', async () => {
    const info = (m: Monitor) => callUnary(m.getDeploymentInfo, m, new emptyproto.Empty(), 5_000);
    const pkg = new resproto.RegisterPackageRequest().setName('pkgA').setVersion('1.0.0');

    const [fromEngine, fromNull] = await Promise.all([info(engine), info(bench)]);
    const ref = await callUnary(bench.registerPackage, bench, pkg, 5_000);

    expect(fromNull.getSupportedfeaturesList()).toEqual(fromEngine.getSupportedfeaturesList());
    expect([fromNull.getStack(), fromNull.getProject()]).toEqual(['s', 'p']);
    expect(ref.getRef()).not.toBe('');
  });
});
