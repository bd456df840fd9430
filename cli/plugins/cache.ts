/**
 * The plugin cache in Pulumi's layout, shared with the `pulumi` CLI: `$PULUMI_HOME/plugins` (default
 * `~/.pulumi/plugins`) holds one folder per plugin, `<kind>-<name>-v<version>`, with the executable
 * `pulumi-<kind>-<name>` inside. Next to a folder: `<folder>.partial` while an install is unfinished (the folder
 * does not count), `<folder>.lock` (the install lock), `<folder>.lastused` (its mtime is the last use).
 */
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isPluginKind, type InstalledPlugin, type PluginSpec } from './types.js';
import { compareVersions, isPrerelease, parseTolerant, sameVersion } from './version.js';

/** `$PULUMI_HOME` (default `~/.pulumi`). */
export function pulumiHome(env: NodeJS.ProcessEnv): string {
  return env.PULUMI_HOME || join(env.HOME || homedir(), '.pulumi');
}

/** `$PULUMI_HOME/plugins`. */
export function pluginCacheDir(env: NodeJS.ProcessEnv): string {
  return join(pulumiHome(env), 'plugins');
}

/** The folder name of a plugin: `<kind>-<name>[-v<version>]`. */
export function pluginDirName(spec: Pick<PluginSpec, 'kind' | 'name' | 'version'>): string {
  return `${spec.kind}-${spec.name}${spec.version ? `-v${spec.version}` : ''}`;
}

/** The executable's file name: `pulumi-<kind>-<name>`. */
export function pluginFileName(spec: Pick<PluginSpec, 'kind' | 'name'>): string {
  return `pulumi-${spec.kind}-${spec.name}`;
}

/** Folder names of plugins, as Pulumi matches them (the name is greedy, so `-v` may appear inside it). */
const PLUGIN_DIR = /^([a-z]+)-([a-zA-Z0-9-][a-zA-Z0-9-_.]*[a-zA-Z0-9])-v(.*)$/;
/** Temporary folders of older Pulumi installs, never plugins. */
const OLD_TEMP_DIR = /\.tmp[0-9]+$/;

/** Reads a cache folder name; `undefined` for anything that is not a plugin. */
export function parsePluginDirName(entry: string): Omit<InstalledPlugin, 'path'> | undefined {
  if (OLD_TEMP_DIR.test(entry)) return undefined;
  const m = PLUGIN_DIR.exec(entry);
  if (!m || !isPluginKind(m[1]!)) return undefined;
  const version = parseTolerant(m[3]!);
  return version ? { kind: m[1], name: m[2]!, version } : undefined;
}

/** Every fully installed plugin in the cache (folders with a `.partial` marker are skipped). */
export function listInstalledPlugins(env: NodeJS.ProcessEnv): InstalledPlugin[] {
  const dir = pluginCacheDir(env);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = new Set(entries.map((e) => e.name));
  const found: InstalledPlugin[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || names.has(`${e.name}.partial`)) continue;
    const parsed = parsePluginDirName(e.name);
    if (parsed) found.push({ ...parsed, path: join(dir, e.name) });
  }
  return found;
}

/**
 * Pulumi's choice among cached plugins: with a version, exactly that version (semver equality); without one, the
 * newest, preferring a release over a pre-release.
 */
export function selectPlugin(installed: readonly InstalledPlugin[], spec: Pick<PluginSpec, 'kind' | 'name' | 'version'>): InstalledPlugin | undefined {
  const candidates = installed.filter((p) => p.kind === spec.kind && p.name === spec.name);
  if (spec.version) return candidates.find((p) => sameVersion(p.version, spec.version!));
  let best: InstalledPlugin | undefined;
  for (const p of candidates) {
    if (!best) best = p;
    else if (isPrerelease(best.version) && !isPrerelease(p.version)) best = p;
    else if (isPrerelease(best.version) === isPrerelease(p.version) && compareVersions(p.version, best.version) > 0) best = p;
  }
  return best;
}

/** True when the exact folder of `spec` is installed (no `.partial` marker). */
export function hasExactPlugin(spec: Pick<PluginSpec, 'kind' | 'name' | 'version'>, env: NodeJS.ProcessEnv): boolean {
  const dir = join(pluginCacheDir(env), pluginDirName(spec));
  return existsSync(dir) && !existsSync(`${dir}.partial`);
}

/** Records a use of a cached plugin (best effort), as Pulumi does, for `plugin ls`'s LAST USED. */
export function markPluginUsed(pluginDir: string): void {
  try {
    writeFileSync(`${pluginDir}.lastused`, '', { mode: 0o600 });
  } catch {
    // a read-only cache still runs its plugins
  }
}

/** Removes a plugin folder and its `.partial`, `.lock` and `.lastused` companions. */
export function removePlugin(plugin: InstalledPlugin): void {
  rmSync(plugin.path, { recursive: true, force: true });
  for (const suffix of ['.partial', '.lock', '.lastused']) rmSync(`${plugin.path}${suffix}`, { force: true });
}

/** Size, install time (folder ctime) and last use (`.lastused` mtime, else the folder's atime) of a plugin. */
export function pluginFileInfo(plugin: InstalledPlugin): { size: number; installTime?: Date; lastUsedTime?: Date } {
  let size = 0;
  const walk = (p: string): void => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const child of readdirSync(p)) walk(join(p, child));
    else size += st.size;
  };
  const st = statSync(plugin.path, { throwIfNoEntry: false });
  const marker = statSync(`${plugin.path}.lastused`, { throwIfNoEntry: false });
  walk(plugin.path);
  // Only the marker: a folder's atime moves whenever anything reads it, listing the cache included.
  return { size, installTime: st?.ctime, lastUsedTime: marker?.mtime };
}
