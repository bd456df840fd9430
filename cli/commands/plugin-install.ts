/**
 * `stackyard plugin install [kind name [version]] [--server URL] [--file F] [--checksum SHA256] [--reinstall]
 * [--exact] [--parallel N]`: installs plugins into the cache shared with `pulumi`. Without arguments, installs what
 * the current project's program needs.
 */
import { UserError } from '../output/errors.js';
import { PluginAcquisitionError } from '../plugins/acquire.js';
import { hasExactPlugin, listInstalledPlugins, selectPlugin } from '../plugins/cache.js';
import { installPlugin, PluginInstallError } from '../plugins/install.js';
import { projectPluginReport } from '../engine/project-plugins.js';
import { currentPlatform, PluginSourceError, sourceFor } from '../plugins/sources.js';
import { describeSpec, isPluginKind, type PluginSpec } from '../plugins/types.js';
import { parseTolerant } from '../plugins/version.js';
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './register.js';

/** Plugins that are part of stackyard itself (the Node.js runtime and dynamic provider run in process). */
function isBundled(spec: PluginSpec): boolean {
  return (spec.kind === 'language' && spec.name === 'nodejs') || (spec.kind === 'resource' && spec.name === 'pulumi-nodejs');
}

function parseArgs(args: (string | undefined)[], opts: Record<string, unknown>): PluginSpec {
  const [kind, rawName, rawVersion] = args;
  if (!isPluginKind(kind!)) throw new UserError(`unrecognized plugin kind: ${kind}`, 'Use one of analyzer, language, resource, converter, tool.');
  if (!rawName) throw new UserError('missing plugin name argument');
  let name = rawName;
  let versionText = rawVersion;
  const at = rawName.indexOf('@');
  if (at > 0) {
    if (rawVersion !== undefined) throw new UserError(`cannot specify both "@${rawName.slice(at + 1)}" and "${rawVersion}" as a version`);
    name = rawName.slice(0, at);
    versionText = rawName.slice(at + 1);
  }
  let version: string | undefined;
  if (versionText !== undefined) {
    version = parseTolerant(versionText);
    if (!version) throw new UserError(`invalid plugin semver: ${versionText}`, 'Give an exact version such as 1.2.3 or v1.2.3 (not a range).');
  }
  if (!version && typeof opts.file === 'string') throw new UserError('missing plugin version argument, this is required if installing from a file');
  const spec: PluginSpec = { kind, name, ...(version ? { version } : {}) };
  if (typeof opts.server === 'string' && opts.server) spec.pluginDownloadURL = opts.server;
  if (typeof opts.checksum === 'string' && opts.checksum) {
    if (!/^([0-9a-fA-F]{2})+$/.test(opts.checksum)) throw new UserError('--checksum was not a valid hex string', 'Give the archive\'s SHA-256 as 64 hex digits.');
    const { os, arch } = currentPlatform();
    spec.checksums = { [`${os}-${arch}`]: opts.checksum.toLowerCase() };
  }
  if (isBundled(spec)) {
    throw new UserError(`the ${spec.name} ${spec.kind} plugin is bundled with stackyard, and cannot be installed with this command`);
  }
  return spec;
}

async function withLatestVersion(spec: PluginSpec, env: NodeJS.ProcessEnv): Promise<PluginSpec> {
  if (spec.version) return spec;
  try {
    const version = await sourceFor(spec, env).latestVersion(async (req) => {
      const res = await fetch(req.url, { headers: req.headers });
      if (!res.ok) throw new Error(`${res.status} HTTP error from ${req.url}`);
      return res.json();
    });
    return { ...spec, version: parseTolerant(version) ?? version };
  } catch (err) {
    throw new UserError(
      `could not find the latest version of ${spec.kind} plugin ${spec.name}: ${err instanceof Error ? err.message : String(err)}`,
      `Give the version: \`stackyard plugin install ${spec.kind} ${spec.name} <version>\`.`,
    );
  }
}

/** Runs `tasks` with at most `limit` at once (`limit` < 1: all at once). */
async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<PromiseSettledResult<void>[]> {
  if (limit < 1) return Promise.allSettled(tasks.map((t) => t()));
  const results: PromiseSettledResult<void>[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!().then(
        () => ({ status: 'fulfilled', value: undefined }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export const pluginInstall: CommandHandler = async (ctx, args, opts) => {
  const file = typeof opts.file === 'string' ? opts.file : undefined;
  let specs: PluginSpec[];
  if (args[0] !== undefined) {
    specs = [await withLatestVersion(parseArgs(args, opts), ctx.env)];
  } else {
    if (file) throw new UserError('--file (-f) is only valid if a specific package is being installed');
    if (opts.checksum) throw new UserError('--checksum is only valid if a specific package is being installed');
    const project = await ctx.requireProject();
    specs = (await projectPluginReport(project.raw, project.dir, ctx.env, STACKYARD_VERSION)).plugins.filter((s) => !isBundled(s));
  }
  const installed = listInstalledPlugins(ctx.env);
  const tasks = specs
    .filter((spec) => opts.reinstall === true || !(opts.exact === true ? hasExactPlugin(spec, ctx.env) : selectPlugin(installed, spec)))
    .map((spec) => async () => {
      const label = `[${spec.kind} plugin ${describeSpec(spec)}]`;
      process.stderr.write(`${label} installing\n`);
      const target = await withLatestVersion(spec, ctx.env);
      await installPlugin(target, file ? { from: 'file', path: file } : { from: 'download' }, {
        env: ctx.env,
        reinstall: opts.reinstall === true,
        userAgent: `stackyard/${STACKYARD_VERSION}`,
        onProgress: (p) => {
          if (p.phase === 'downloading') process.stderr.write(`Downloading plugin ${describeSpec(p.spec)} from ${p.url}\n`);
        },
      });
    });
  const parallel = typeof opts.parallel === 'number' ? opts.parallel : 4;
  const failures = (await runLimited(tasks, parallel)).flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length === 1 && (failures[0] instanceof PluginInstallError || failures[0] instanceof PluginSourceError)) throw new UserError((failures[0] as Error).message);
  if (failures.length) throw new UserError(new PluginAcquisitionError(failures.map((f) => (f instanceof Error ? f : new Error(String(f))))).message);
};
