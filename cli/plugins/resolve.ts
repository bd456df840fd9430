/**
 * Finds a plugin's executable the way Pulumi does (`getPluginInfoAndPath`): a plugin declared in Pulumi.yaml, then
 * an ambient plugin on `PATH` (unless `PULUMI_IGNORE_AMBIENT_PLUGINS` is true), then the plugin cache.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { listInstalledPlugins, markPluginUsed, pluginFileName, selectPlugin } from './cache.js';
import { installCommand } from './messages.js';
import type { PluginSpec, ProjectPlugin } from './types.js';
import { sameVersion } from './version.js';

/** Where a plugin was found. */
export interface ResolvedPlugin {
  /** The executable. */
  path: string;
  source: 'project' | 'ambient' | 'cache';
  /** The version of the cached folder or project declaration, when known. */
  version?: string;
}

/** How to look. */
export interface ResolveOptions {
  env: NodeJS.ProcessEnv;
  /** Plugins declared in Pulumi.yaml; paths relative to `projectDir`. */
  projectPlugins?: readonly ProjectPlugin[];
  projectDir?: string;
  /** Record the use in the cache's `.lastused` marker (when about to run it). */
  markUsed?: boolean;
}

/** Pulumi's boolean environment rule: `1` or `true` in any case. */
export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const v = env[name];
  return v === '1' || v?.toLowerCase() === 'true';
}

/** True when ambient plugins on PATH are considered. */
export function ambientPluginsEnabled(env: NodeJS.ProcessEnv): boolean {
  return !envFlag(env, 'PULUMI_IGNORE_AMBIENT_PLUGINS');
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

/** The first executable `file` on `PATH`. */
export function findOnPath(file: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const d of (env.PATH ?? '').split(delimiter)) {
    if (!d) continue;
    const p = join(d, file);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

/** Raised when no executable exists for a plugin; says how to install it. */
export class MissingPluginError extends Error {
  override readonly name = 'MissingPluginError';
  constructor(readonly spec: PluginSpec, includeAmbient: boolean) {
    const where = `${spec.version ? ` at version v${spec.version}` : ''}${includeAmbient ? ' or on your $PATH' : ''}`;
    const from = spec.pluginDownloadURL ? ` from ${spec.pluginDownloadURL}` : '';
    super(
      `no ${spec.kind} plugin '${pluginFileName(spec)}' found in the workspace${where}${from}; ` +
        `install it with \`${installCommand(spec)}\`` +
        (spec.kind === 'resource' ? ', or declare its path under `plugins.providers` in Pulumi.yaml' : ''),
    );
  }
}

/** Finds the executable of `spec`, or `undefined`. */
export function resolvePlugin(spec: PluginSpec, opts: ResolveOptions): ResolvedPlugin | undefined {
  const file = pluginFileName(spec);
  for (const declared of opts.projectPlugins ?? []) {
    if ((declared.kind ?? 'resource') !== spec.kind || declared.name !== spec.name) continue;
    if (declared.version && spec.version && !sameVersion(declared.version.replace(/^v/, ''), spec.version)) continue;
    const base = resolve(opts.projectDir ?? '.', declared.path);
    // Pulumi expects a folder; an executable named directly is accepted too.
    const candidate = isExecutable(base) ? base : join(base, file);
    if (isExecutable(candidate)) return { path: candidate, source: 'project', version: declared.version };
  }
  if (ambientPluginsEnabled(opts.env)) {
    const ambient = findOnPath(file, opts.env);
    if (ambient) return { path: ambient, source: 'ambient' };
  }
  const match = selectPlugin(listInstalledPlugins(opts.env), spec);
  if (!match) return undefined;
  if (opts.markUsed) markPluginUsed(match.path);
  return { path: join(match.path, file), source: 'cache', version: match.version };
}

/** Like `resolvePlugin`, but throws `MissingPluginError`. */
export function requirePlugin(spec: PluginSpec, opts: ResolveOptions): ResolvedPlugin {
  const found = resolvePlugin(spec, opts);
  if (!found) throw new MissingPluginError(spec, ambientPluginsEnabled(opts.env));
  return found;
}
