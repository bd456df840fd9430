/** The commands our messages advise, in one place so every message names `stackyard`, never `pulumi`. */
import type { PluginSpec } from './types.js';

/** `stackyard plugin install <kind> <name> [v<version>] [--server <url>]`. */
export function installCommand(spec: PluginSpec): string {
  const version = spec.version ? ` v${spec.version}` : '';
  const server = spec.pluginDownloadURL ? ` --server ${spec.pluginDownloadURL}` : '';
  return `stackyard plugin install ${spec.kind} ${spec.name}${version}${server}`;
}

/** The offline form: `stackyard plugin install <kind> <name> <version> --file <archive>`. */
export function offlineInstallCommand(spec: PluginSpec): string {
  return `stackyard plugin install ${spec.kind} ${spec.name} ${spec.version ? `v${spec.version}` : '<version>'} --file <pulumi-${spec.kind}-${spec.name}-…tar.gz>`;
}
