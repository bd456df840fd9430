/**
 * The plugins a project uses, for `about`, `plugin ls --project` and `plugin install` with no arguments: for Node.js
 * the packages under node_modules; for other runtimes, what the language plugin's GetRequiredPackages answers (the
 * plugin is started against a bare local gRPC endpoint, as no program runs).
 */
import { declaredPlugins, nodeProjectPlugins, programDirOf, runtimeName } from '../plugins/project-plugins.js';
import type { PluginSpec } from '../plugins/types.js';
import { grpc } from './proto.js';
import { LanguagePlugin } from './language-plugin.js';

/** A project's language and the plugins its program needs. */
export interface ProjectPluginReport {
  language: { name: string; version?: string };
  plugins: PluginSpec[];
}

async function withBareEndpoint<T>(fn: (address: string) => Promise<T>): Promise<T> {
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

/** Reads the plugins of the project whose Pulumi.yaml is `raw` in `projectDir`. `nodeVersion` is the bundled runtime's. */
export async function projectPluginReport(raw: Record<string, unknown>, projectDir: string, env: NodeJS.ProcessEnv, nodeVersion: string): Promise<ProjectPluginReport> {
  const runtime = runtimeName(raw) ?? 'nodejs';
  if (runtime === 'nodejs') return { language: { name: 'nodejs', version: nodeVersion }, plugins: nodeProjectPlugins(raw, projectDir) };
  const programDir = programDirOf(raw, projectDir);
  const options = (typeof raw.runtime === 'object' && raw.runtime !== null ? ((raw.runtime as { options?: Record<string, unknown> }).options ?? {}) : {});
  return withBareEndpoint(async (engineAddress) => {
    const plugin = await LanguagePlugin.start({ runtime, engineAddress, rootDir: projectDir, programDir, env, projectPlugins: declaredPlugins(raw) });
    try {
      const version = await plugin.version().catch(() => undefined);
      const plugins = await plugin.requiredPlugins({ rootDirectory: projectDir, programDirectory: programDir, entryPoint: '.', options });
      return { language: { name: runtime, version }, plugins };
    } finally {
      await plugin.close();
    }
  });
}
