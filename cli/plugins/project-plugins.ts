/** What a project's Pulumi.yaml says about plugins: the ones it declares by path, and the program's own needs. */
import { resolve } from 'node:path';
import { nodeRequiredPlugins } from './required.js';
import type { PluginKind, PluginSpec, ProjectPlugin } from './types.js';

const SECTIONS: [string, PluginKind][] = [
  ['providers', 'resource'],
  ['languages', 'language'],
  ['analyzers', 'analyzer'],
];

/** `plugins.providers|languages|analyzers[]` entries with a name and a path. */
export function declaredPlugins(raw: Record<string, unknown>): ProjectPlugin[] {
  const plugins = (raw.plugins ?? {}) as Record<string, unknown>;
  return SECTIONS.flatMap(([section, kind]) => {
    const list = plugins[section];
    if (!Array.isArray(list)) return [];
    return list
      .filter((x): x is { name: string; path: string; version?: unknown } => typeof x?.name === 'string' && typeof x?.path === 'string')
      .map((x) => ({ name: x.name, path: x.path, kind, ...(typeof x.version === 'string' ? { version: x.version } : {}) }));
  });
}

/** The runtime name of Pulumi.yaml (`runtime: nodejs` or `runtime: {name: nodejs, options: …}`). */
export function runtimeName(raw: Record<string, unknown>): string | undefined {
  const r = raw.runtime;
  if (typeof r === 'string') return r;
  const name = (r as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The folder the program runs in: `main` when it names a folder, else the project folder. */
export function programDirOf(raw: Record<string, unknown>, projectDir: string): string {
  return typeof raw.main === 'string' && !/\.[cm]?[jt]s$/.test(raw.main) ? resolve(projectDir, raw.main) : projectDir;
}

/** The plugins a Node.js project's installed packages need (empty for other runtimes, which ask their language plugin). */
export function nodeProjectPlugins(raw: Record<string, unknown>, projectDir: string): PluginSpec[] {
  return runtimeName(raw) === 'nodejs' ? nodeRequiredPlugins(programDirOf(raw, projectDir)) : [];
}
