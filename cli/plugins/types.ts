/** Shared types of the plugin cache, resolution and installation (cli/plugins). */

/** Pulumi's plugin kinds (`apitype.PluginKind`). */
export const PLUGIN_KINDS = ['analyzer', 'language', 'resource', 'converter', 'tool'] as const;

/** One of Pulumi's plugin kinds. */
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/** True when `s` names a plugin kind. */
export function isPluginKind(s: string): s is PluginKind {
  return (PLUGIN_KINDS as readonly string[]).includes(s);
}

/** A plugin as a program, a state file or a command asks for it (Pulumi's `PluginDescriptor`). */
export interface PluginSpec {
  kind: PluginKind;
  name: string;
  /** Normalized semantic version without a leading `v`; absent means "any installed, else the latest". */
  version?: string;
  /** Where to download it from: `https://…` (templated), `github://host/org[/repo]`, `gitlab://host/project`. */
  pluginDownloadURL?: string;
  /** Expected SHA-256 of the archive, hex, keyed by `<os>-<arch>` (Pulumi's platform names, e.g. `linux-amd64`). */
  checksums?: Record<string, string>;
}

/** A plugin folder in the cache. */
export interface InstalledPlugin {
  kind: PluginKind;
  name: string;
  version: string;
  /** The plugin's folder. */
  path: string;
}

/** A plugin declared in Pulumi.yaml (`plugins.providers|languages|analyzers[]`), loaded from a local path. */
export interface ProjectPlugin {
  name: string;
  path: string;
  version?: string;
  /** Default `resource` (entries of `plugins.providers`). */
  kind?: PluginKind;
}

/** `name-version` as Pulumi prints a plugin (`PluginDescriptor.String`). */
export function describeSpec(spec: Pick<PluginSpec, 'name' | 'version'>): string {
  return spec.version ? `${spec.name}-${spec.version}` : spec.name;
}
