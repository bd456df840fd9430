/**
 * Finds provider plugins the way Pulumi does: `Pulumi.yaml` `plugins.providers`, then the `PATH` (ambient plugins),
 * then the plugin cache `$PULUMI_HOME/plugins/resource-<pkg>-v<version>/pulumi-resource-<pkg>`. The Node dynamic
 * provider (`pulumi-nodejs`) comes from the program's own `@pulumi/pulumi`.
 */
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { PluginCommand } from './plugin-host.js';

/** A provider plugin declared in `Pulumi.yaml` (`plugins.providers[]`). */
export interface ProjectPlugin {
  name: string;
  path: string;
  version?: string;
}

/** Where to look. */
export interface DiscoveryOptions {
  programDir: string;
  projectPlugins?: readonly ProjectPlugin[];
  env: NodeJS.ProcessEnv;
}

/** Raised when no plugin binary exists for a package. */
export class MissingPluginError extends Error {
  override readonly name = 'MissingPluginError';
  constructor(readonly pkg: string, readonly version: string | undefined) {
    const v = version ? ` v${version}` : '';
    super(
      `no resource plugin 'pulumi-resource-${pkg}'${version ? ` at version v${version}` : ''} found in the workspace or on your $PATH; ` +
        `install the plugin with \`pulumi plugin install resource ${pkg}${v}\`, or declare its path under \`plugins.providers\` in Pulumi.yaml`,
    );
  }
}

function isExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `$PULUMI_HOME/plugins` (default `~/.pulumi/plugins`). */
export function pluginCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.PULUMI_HOME ?? join(homedir(), '.pulumi'), 'plugins');
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

function fromCache(pkg: string, version: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const dir = pluginCacheDir(env);
  const bin = `pulumi-resource-${pkg}`;
  if (version) {
    const p = join(dir, `resource-${pkg}-v${version.replace(/^v/, '')}`, bin);
    return isExecutable(p) ? p : undefined;
  }
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return undefined;
  }
  const prefix = `resource-${pkg}-v`;
  const versions = entries
    .filter((e) => e.startsWith(prefix) && !e.endsWith('.lock') && !e.endsWith('.partial'))
    .map((e) => e.slice(prefix.length))
    .filter((v) => isExecutable(join(dir, `${prefix}${v}`, bin)))
    .sort(compareVersions);
  const best = versions.at(-1);
  return best === undefined ? undefined : join(dir, `${prefix}${best}`, bin);
}

function fromPath(pkg: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.PULUMI_IGNORE_AMBIENT_PLUGINS === 'true' || env.PULUMI_IGNORE_AMBIENT_PLUGINS === '1') return undefined;
  for (const d of (env.PATH ?? '').split(delimiter)) {
    if (!d) continue;
    const p = join(d, `pulumi-resource-${pkg}`);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

/** Resolves the command that starts the provider plugin for `pkg` (at `version` if given). */
export function findProviderPlugin(pkg: string, version: string | undefined, opts: DiscoveryOptions): PluginCommand {
  const label = `resource-${pkg}${version ? ` v${version}` : ''}`;
  if (pkg === 'pulumi-nodejs') {
    const req = createRequire(join(opts.programDir, 'noop.js'));
    return { command: process.execPath, args: [req.resolve('@pulumi/pulumi/cmd/dynamic-provider')], label };
  }
  const declared = opts.projectPlugins?.find((p) => p.name === pkg && (!version || !p.version || p.version.replace(/^v/, '') === version.replace(/^v/, '')));
  if (declared) {
    const base = resolve(opts.programDir, declared.path);
    const candidate = isExecutable(base) ? base : join(base, `pulumi-resource-${pkg}`);
    if (isExecutable(candidate)) return { command: candidate, args: [], label };
  }
  const found = fromPath(pkg, opts.env) ?? fromCache(pkg, version, opts.env);
  if (!found) throw new MissingPluginError(pkg, version);
  return { command: found, args: [], label };
}
