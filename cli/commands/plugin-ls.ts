/** `stackyard plugin ls [--project] [--json]`: the plugin cache as `pulumi plugin ls` shows it. */
import { listInstalledPlugins, pluginFileInfo } from '../plugins/cache.js';
import { formatBytes } from '../plugins/format.js';
import { projectPluginReport } from '../engine/plugins/languages/project-plugins.js';
import { declaredPlugins } from '../plugins/project-plugins.js';
import { resolvePlugin } from '../plugins/resolve.js';
import type { InstalledPlugin } from '../plugins/types.js';
import { compareVersions } from '../plugins/version.js';
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './types.js';

/** Pulumi's JSON time format: milliseconds and the zone, in UTC. */
function formatTime(d: Date): string {
  return d.toISOString();
}

/** `humanize.Time`: "3 minutes ago". */
function ago(d: Date, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - d.getTime()) / 1000));
  const steps: [number, string][] = [[60, 'second'], [60, 'minute'], [24, 'hour'], [7, 'day'], [4.35, 'week'], [12, 'month'], [Infinity, 'year']];
  let value = s;
  for (const [size, unit] of steps) {
    if (value < size) return value <= 1 && unit === 'second' ? 'now' : `${Math.floor(value)} ${unit}${Math.floor(value) === 1 ? '' : 's'} ago`;
    value /= size;
  }
  return 'long ago';
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 2))).join('').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** The cached plugins the current project's program uses. */
async function projectPlugins(ctx: Parameters<CommandHandler>[0]): Promise<InstalledPlugin[]> {
  const project = await ctx.requireProject();
  const declared = declaredPlugins(project.raw);
  const found: InstalledPlugin[] = [];
  const report = await projectPluginReport(project.raw, project.dir, ctx.env, STACKYARD_VERSION);
  const specs = [...report.plugins, ...(report.language.name === 'nodejs' ? [] : [{ kind: 'language' as const, name: report.language.name }])];
  for (const spec of specs) {
    const hit = resolvePlugin(spec, { env: ctx.env, projectPlugins: declared, projectDir: project.dir });
    if (hit?.source === 'cache') found.push({ kind: spec.kind, name: spec.name, version: hit.version ?? spec.version ?? '', path: hit.path.slice(0, hit.path.lastIndexOf('/')) });
  }
  return found;
}

export const pluginLs: CommandHandler = async (ctx, _args, opts) => {
  const plugins = opts.project ? await projectPlugins(ctx) : listInstalledPlugins(ctx.env);
  plugins.sort((a, b) => (a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.kind !== b.kind ? (a.kind < b.kind ? -1 : 1) : compareVersions(b.version, a.version)));
  const infos = plugins.map((p) => ({ plugin: p, ...pluginFileInfo(p) }));
  if (opts.json) {
    const out = infos.map(({ plugin, size, installTime, lastUsedTime }) => ({
      name: plugin.name,
      kind: plugin.kind,
      version: plugin.version,
      size,
      ...(installTime ? { installTime: formatTime(installTime) } : {}),
      ...(lastUsedTime ? { lastUsedTime: formatTime(lastUsedTime) } : {}),
    }));
    process.stdout.write(`${JSON.stringify(out, null, 4)}\n`);
    return;
  }
  const rows = infos.map(({ plugin, size, installTime, lastUsedTime }) => [
    plugin.name,
    plugin.kind,
    plugin.version,
    size ? formatBytes(size) : 'n/a',
    installTime ? ago(installTime) : 'n/a',
    lastUsedTime ? ago(lastUsedTime) : 'never',
  ]);
  const total = infos.reduce((n, i) => n + i.size, 0);
  process.stdout.write(`${table(['NAME', 'KIND', 'VERSION', 'SIZE', 'INSTALLED', 'LAST USED'], rows)}\nTOTAL plugin cache size: ${formatBytes(total)}\n`);
};
