import { describe, expect, it } from 'vitest';
import { ProgramHost } from './program-host.js';
import { grpc } from '../rpc/proto.js';
import type { StepExecutor } from '../steps/step-executor.js';

/** The servers grpc-js tracks for channelz, by listening port. */
function channelzServerPorts(): Promise<number[]> {
  return new Promise((resolve, reject) =>
    grpc.getChannelzHandlers().GetServers({ request: { start_server_id: '0', max_results: '1000' } } as never, (err: unknown, res: unknown) => {
      if (err) return reject(err);
      const servers = (res as { server: { listen_socket: { name: string }[] }[] }).server;
      resolve(servers.flatMap((s) => s.listen_socket.map((l) => Number(l.name.split(':').pop()))));
    }),
  );
}

describe('ProgramHost', () => {
  it('serves the program without channelz bookkeeping (paid on every call otherwise)', async () => {
    const tracked = new grpc.Server();
    const trackedPort = await new Promise<number>((resolve, reject) =>
      tracked.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    const componentInfo = { project: 'p', stack: 's', organization: 'o', config: {}, dryRun: false, parallel: 1 };
    const host = new ProgramHost({ executor: {} as StepExecutor, events: {}, onShutdown: async () => undefined, componentInfo });
    await host.start();
    try {
      const ports = await channelzServerPorts();

      // a server with default options is tracked, so the query would see ours if it were
      expect(ports).toContain(trackedPort);
      expect(ports).not.toContain(Number(host.address.split(':').pop()));
    } finally {
      await host.stop();
      tracked.forceShutdown();
    }
  });
});
