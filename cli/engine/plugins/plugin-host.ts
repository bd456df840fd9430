/**
 * Launches plugin processes with Pulumi's plugin protocol: argv `[engineAddress]` (after `--logflow`'s flags), the first stdout line is the
 * port the plugin's gRPC server listens on; later stdout and all stderr are free-form logs, captured for errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { grpc } from '../rpc/proto.js';
import { diesWithParent, signalGroup, trackChild } from './child-processes.js';

/** How to start one plugin. */
export interface PluginCommand {
  /** Executable to run. */
  command: string;
  /** Arguments placed before the engine address. */
  args: string[];
  /** Human-readable plugin name for messages, e.g. `resource-test v1.0.0`. */
  label: string;
}

/** A running plugin process. */
export interface PluginProcess {
  readonly port: number;
  /** The captured stderr (and post-port stdout) so far, capped. */
  output(): string;
  /** Stops the process and waits for it to exit. */
  kill(): Promise<void>;
  /** Resolves when the process exits on its own or is killed. */
  readonly exited: Promise<number | null>;
}

const OUTPUT_CAP = 64 * 1024;

/** Starts a plugin and waits for its port (failing after `timeoutMs` or if it exits first). */
export function launchPlugin(
  cmd: PluginCommand,
  opts: {
    engineAddress: string;
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs?: number;
    onLog?: (line: string) => void;
    loggingArgs?: readonly string[];
    /** Arguments after the engine address (a policy pack's folder). */
    trailingArgs?: readonly string[];
  },
): Promise<PluginProcess> {
  // `--logflow`'s arguments come before the engine address, as Pulumi's buildPluginArguments puts them
  const launch = diesWithParent(cmd.command, [...cmd.args, ...(opts.loggingArgs ?? []), opts.engineAddress, ...(opts.trailingArgs ?? [])]);
  const child: ChildProcess = spawn(launch.command, launch.args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a Ctrl-C at the terminal must not kill a provider in the middle of an operation the
    // engine lets finish.
    detached: true,
  });
  trackChild(child);
  let captured = '';
  const capture = (text: string) => {
    captured = (captured + text).slice(-OUTPUT_CAP);
    if (opts.onLog) for (const line of text.split('\n')) if (line.trim()) opts.onLog(line);
  };
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', capture);

  return new Promise<PluginProcess>((resolve, reject) => {
    let stdoutBuf = '';
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`plugin ${cmd.label} did not report a port within ${opts.timeoutMs ?? 30_000} ms`)), opts.timeoutMs ?? 30_000);
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL');
      reject(err);
    };
    const onStdout = (chunk: string) => {
      if (settled) return capture(chunk);
      stdoutBuf += chunk;
      const nl = stdoutBuf.indexOf('\n');
      if (nl < 0) return;
      const first = stdoutBuf.slice(0, nl).trim();
      const rest = stdoutBuf.slice(nl + 1);
      const port = Number(first);
      if (!Number.isInteger(port) || port <= 0 || port > 65535) {
        return fail(new Error(`plugin ${cmd.label} printed ${JSON.stringify(first.slice(0, 200))} instead of a port`));
      }
      settled = true;
      clearTimeout(timer);
      if (rest) capture(rest);
      resolve({
        port,
        output: () => captured,
        exited,
        kill: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            // The whole group: a wrapper script's own child is the real plugin.
            signalGroup(child, 'SIGTERM');
            const t = setTimeout(() => signalGroup(child, 'SIGKILL'), 2_000);
            await exited;
            clearTimeout(t);
          }
        },
      });
    };
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', onStdout);
    child.once('error', (err) => fail(new Error(`could not start plugin ${cmd.label}: ${err.message}`)));
    void exited.then((code) => {
      const tail = captured.trim() ? `:\n${captured.trim().slice(-4000)}` : '';
      fail(new Error(`plugin ${cmd.label} exited with code ${code} before reporting a port${tail}`));
    });
  });
}

/** Runs `fn` with the address of a local gRPC endpoint serving nothing: for a plugin asked questions while no program runs. */
export async function withBareEndpoint<T>(fn: (address: string) => Promise<T>): Promise<T> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  try {
    return await fn(`127.0.0.1:${port}`);
  } finally {
    server.forceShutdown();
  }
}
