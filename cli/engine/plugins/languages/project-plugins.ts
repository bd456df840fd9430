/**
 * The plugins a project uses, for `about`, `plugin ls --project` and `plugin install` with no arguments: for Node.js
 * the packages under node_modules; for other runtimes, what the language plugin's GetRequiredPackages answers (the
 * plugin is started against a bare local gRPC endpoint, as no program runs).
 */
import { declaredPlugins, nodeProjectPlugins, programDirOf, runtimeName } from '../../../plugins/project-plugins.js';
import type { PluginSpec } from '../../../plugins/types.js';
import { withBareEndpoint } from '../plugin-host.js';
import { LanguagePlugin, type LanguageProgramInfo } from './language-plugin.js';

/** A project's language and the plugins its program needs. */
export interface ProjectPluginReport {
  language: { name: string; version?: string };
  plugins: PluginSpec[];
}

/**
 * Starts the project's language plugin against a bare local endpoint, runs `fn`, and stops it. Only asking it, not
 * running the program: the plugin's last use in the cache is left as it was.
 */
export function withProjectLanguagePlugin<T>(
  raw: Record<string, unknown>,
  projectDir: string,
  env: NodeJS.ProcessEnv,
  fn: (plugin: LanguagePlugin, info: LanguageProgramInfo) => Promise<T>,
): Promise<T> {
  const runtime = runtimeName(raw) ?? 'nodejs';
  const programDir = programDirOf(raw, projectDir);
  const options = typeof raw.runtime === 'object' && raw.runtime !== null ? ((raw.runtime as { options?: Record<string, unknown> }).options ?? {}) : {};
  const info: LanguageProgramInfo = { rootDirectory: projectDir, programDirectory: programDir, entryPoint: '.', options };
  return withBareEndpoint(async (engineAddress) => {
    const plugin = await LanguagePlugin.start({ runtime, engineAddress, rootDir: projectDir, programDir, env, projectPlugins: declaredPlugins(raw), markUsed: false });
    try {
      return await fn(plugin, info);
    } finally {
      await plugin.close();
    }
  });
}

/** Reads the plugins of the project whose Pulumi.yaml is `raw` in `projectDir`. `nodeVersion` is the bundled runtime's. */
export async function projectPluginReport(raw: Record<string, unknown>, projectDir: string, env: NodeJS.ProcessEnv, nodeVersion: string): Promise<ProjectPluginReport> {
  const runtime = runtimeName(raw) ?? 'nodejs';
  if (runtime === 'nodejs') return { language: { name: 'nodejs', version: nodeVersion }, plugins: nodeProjectPlugins(raw, projectDir) };
  return withProjectLanguagePlugin(raw, projectDir, env, async (plugin, info) => {
    const version = await plugin.version().catch(() => undefined);
    return { language: { name: runtime, version }, plugins: await plugin.requiredPlugins(info) };
  });
}
