/**
 * The plugins a run needs before its first step, gathered as Pulumi gathers them (`pkg/engine/plugins.go`): from the
 * program (for Node.js, the packages under `node_modules` whose package.json has `"pulumi": {"resource": true}`, as
 * `pulumi-language-nodejs` reports them) and from the provider resources of the stack's state (their `version`,
 * `pluginDownloadURL` and `pluginChecksums`).
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { PluginSpec } from './types.js';
import { parseTolerant } from './version.js';

interface PulumiSection {
  resource?: boolean;
  name?: string;
  version?: string;
  server?: string;
}

function pluginOfPackage(file: string): PluginSpec | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // Most packages never mention pulumi; skip parsing them.
  if (!text.includes('"pulumi"')) return undefined;
  let info: { name?: string; version?: string; pulumi?: PulumiSection };
  try {
    info = JSON.parse(text) as typeof info;
  } catch {
    return undefined;
  }
  if (info.pulumi?.resource !== true) return undefined;
  const name = info.pulumi.name || (info.name?.startsWith('@pulumi/') ? info.name.slice('@pulumi/'.length) : undefined);
  const version = parseTolerant(info.pulumi.version || info.version || '');
  if (!name || !version) return undefined;
  return { kind: 'resource', name, version, ...(info.pulumi.server ? { pluginDownloadURL: info.pulumi.server } : {}) };
}

/**
 * Resource plugins of the Node.js packages installed for a program. Reads each package's own package.json under
 * `node_modules` (scoped packages included) and recurses into nested `node_modules`, following each symlinked folder
 * once. Written for speed, as it runs before every preview and update: no exceptions on the common paths (missing
 * folders are `stat`ed, not caught) and one `stat` per symlink.
 */
export function nodeRequiredPlugins(programDir: string): PluginSpec[] {
  const found: PluginSpec[] = [];
  const seen = new Set<string>();
  const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  const visitModules = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.name.startsWith('@')) visitModules(p);
      else if (e.isDirectory()) visitPackage(p);
      else if (e.isSymbolicLink()) {
        // one stat follows the link; its device and inode identify the folder, so a link cycle is walked once
        const st = statSync(p, { throwIfNoEntry: false });
        const key = st ? `${st.dev}:${st.ino}` : '';
        if (st?.isDirectory() && !seen.has(key)) {
          seen.add(key);
          visitPackage(p);
        }
      }
    }
  };
  const visitPackage = (dir: string): void => {
    const plugin = pluginOfPackage(join(dir, 'package.json'));
    if (plugin) found.push(plugin);
    const nested = join(dir, 'node_modules');
    if (isDir(nested)) visitModules(nested);
  };
  const top = join(programDir, 'node_modules');
  if (isDir(top)) visitModules(top);
  return found;
}

/** A provider resource as the state records it. */
interface ProviderStateLike {
  type: string;
  inputs?: Record<string, unknown>;
}

function stringAt(m: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = m?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The plugin of a provider resource: package from `pulumi:providers:<pkg>` (or `__internal.name`, never a top-level
 * `name`), `version`, `pluginDownloadURL` and `pluginChecksums` from `__internal` (or the top level, in state from
 * older engines).
 */
export function providerPluginSpec(type: string, inputs: Record<string, unknown> | undefined): PluginSpec | undefined {
  if (!type.startsWith('pulumi:providers:')) return undefined;
  const raw = inputs?.__internal;
  const internal = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : inputs;
  // `name` is only ever recorded under `__internal` (Pulumi #16837): a top-level `name` is the provider's config
  const name = (internal !== inputs ? stringAt(internal, 'name') : undefined) ?? type.slice('pulumi:providers:'.length);
  const versionText = internal && 'parameterization' in internal ? stringAt(internal, 'version') : stringAt(inputs, 'version');
  const version = versionText ? parseTolerant(versionText) : undefined;
  const url = stringAt(internal, 'pluginDownloadURL');
  const rawChecksums = internal?.pluginChecksums ?? inputs?.pluginChecksums;
  const checksums =
    rawChecksums && typeof rawChecksums === 'object' && !Array.isArray(rawChecksums)
      ? Object.fromEntries(Object.entries(rawChecksums).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : undefined;
  return {
    kind: 'resource',
    name,
    ...(version ? { version } : {}),
    ...(url ? { pluginDownloadURL: url } : {}),
    ...(checksums && Object.keys(checksums).length ? { checksums } : {}),
  };
}

/** The plugins of the provider resources in a state. */
export function statePlugins(resources: readonly ProviderStateLike[]): PluginSpec[] {
  return resources.flatMap((r) => {
    const spec = providerPluginSpec(r.type, r.inputs);
    return spec ? [spec] : [];
  });
}
