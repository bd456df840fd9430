/**
 * How the engine starts provider plugins: the Node dynamic provider (`pulumi-nodejs`) comes from the program's own
 * `@pulumi/pulumi`; every other package is resolved by cli/plugins (Pulumi.yaml `plugins.providers`, then `PATH`,
 * then the plugin cache `$PULUMI_HOME/plugins`).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { requirePlugin, type ResolvedPlugin } from '../../plugins/resolve.js';
import type { ProjectPlugin } from '../../plugins/types.js';
import type { PluginCommand } from './plugin-host.js';

export { MissingPluginError } from '../../plugins/resolve.js';
export { pluginCacheDir } from '../../plugins/cache.js';
export type { ProjectPlugin } from '../../plugins/types.js';

/** Where to look. */
export interface DiscoveryOptions {
  programDir: string;
  /** Plugins declared in Pulumi.yaml, with paths relative to `projectDir` (default: `programDir`). */
  projectPlugins?: readonly ProjectPlugin[];
  projectDir?: string;
  env: NodeJS.ProcessEnv;
}

/** The command that starts a provider plugin, and where it was found (undefined for the dynamic provider). */
export interface ProviderPluginCommand extends PluginCommand {
  found?: ResolvedPlugin;
}

/** Resolves the command that starts the provider plugin for `pkg` (at `version` if given); throws MissingPluginError. */
export function findProviderPlugin(pkg: string, version: string | undefined, opts: DiscoveryOptions, pluginDownloadURL?: string): ProviderPluginCommand {
  const label = `resource-${pkg}${version ? ` v${version}` : ''}`;
  if (pkg === 'pulumi-nodejs') {
    const req = createRequire(join(opts.programDir, 'noop.js'));
    return { command: process.execPath, args: [req.resolve('@pulumi/pulumi/cmd/dynamic-provider')], label };
  }
  const found = requirePlugin(
    { kind: 'resource', name: pkg, version: version?.replace(/^v/, ''), ...(pluginDownloadURL ? { pluginDownloadURL } : {}) },
    { env: opts.env, projectPlugins: opts.projectPlugins, projectDir: opts.projectDir ?? opts.programDir, markUsed: true },
  );
  return { command: found.path, args: [], label, found };
}
