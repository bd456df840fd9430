/** Installs several plugins with bounded parallelism, skipping installed ones (`plugin install`, `install`). */
import { PluginAcquisitionError } from './acquire.js';
import { hasExactPlugin, listInstalledPlugins, selectPlugin } from './cache.js';
import { installPlugin, type PluginContent } from './install.js';
import { describeSpec, type PluginSpec } from './types.js';

/** Options of `installMany`. */
export interface InstallManyOptions {
  env: NodeJS.ProcessEnv;
  reinstall?: boolean;
  /** Only an installed folder of exactly this version counts (`--exact`). */
  exact?: boolean;
  /** At most this many at once; less than 1: all at once (Pulumi's `--parallel`, default 4). */
  parallel?: number;
  content?: PluginContent;
  userAgent?: string;
  /** Fills in a missing version (the latest release). */
  withVersion?: (spec: PluginSpec) => Promise<PluginSpec>;
  write: (line: string) => void;
}

/** Runs `tasks` with at most `limit` at once. */
async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<unknown[]> {
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      await task().catch((err: unknown) => void failures.push(err));
    }
  };
  await Promise.all(Array.from({ length: limit < 1 ? tasks.length : Math.min(limit, tasks.length) }, worker));
  return failures;
}

/** Installs what is missing among `specs`; throws `PluginAcquisitionError` listing every failure. */
export async function installMany(specs: readonly PluginSpec[], o: InstallManyOptions): Promise<void> {
  const installed = listInstalledPlugins(o.env);
  const tasks = specs
    .filter((spec) => o.reinstall === true || !(o.exact ? hasExactPlugin(spec, o.env) : selectPlugin(installed, spec)))
    .map((spec) => async () => {
      o.write(`[${spec.kind} plugin ${describeSpec(spec)}] installing`);
      const target = o.withVersion ? await o.withVersion(spec) : spec;
      await installPlugin(target, o.content ?? { from: 'download' }, {
        env: o.env,
        reinstall: o.reinstall,
        userAgent: o.userAgent,
        onProgress: (p) => {
          if (p.phase === 'downloading') o.write(`Downloading plugin ${describeSpec(p.spec)} from ${p.url}`);
        },
      });
    });
  const failures = await runLimited(tasks, o.parallel ?? 4);
  if (failures.length) throw new PluginAcquisitionError(failures.map((f) => (f instanceof Error ? f : new Error(String(f)))));
}
