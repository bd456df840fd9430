/**
 * `stackyard plugin install [kind name [version]] [--server URL] [--file F] [--checksum SHA256] [--reinstall]
 * [--exact] [--parallel N]`: installs plugins into the cache shared with `pulumi`. Without arguments, installs what
 * the current project's program needs.
 */
import { UserError } from '../output/errors.js';
import { PluginAcquisitionError } from '../plugins/acquire.js';
import { installMany } from '../plugins/install-many.js';
import { projectPluginReport } from '../engine/plugins/languages/project-plugins.js';
import { currentPlatform, sourceFor } from '../plugins/sources.js';
import { isPluginKind, type PluginSpec } from '../plugins/types.js';
import { parseTolerant } from '../plugins/version.js';
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './types.js';

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
  try {
    await installMany(specs, {
      env: ctx.env,
      reinstall: opts.reinstall === true,
      exact: opts.exact === true,
      parallel: typeof opts.parallel === 'number' ? opts.parallel : 4,
      content: file ? { from: 'file', path: file } : { from: 'download' },
      userAgent: `stackyard/${STACKYARD_VERSION}`,
      withVersion: (spec) => withLatestVersion(spec, ctx.env),
      write: (line) => void process.stderr.write(`${line}\n`),
    });
  } catch (err) {
    if (err instanceof PluginAcquisitionError) throw new UserError(err.message);
    throw err;
  }
};
