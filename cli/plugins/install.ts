/**
 * Installs a plugin into the cache atomically and safely next to other installers (stackyard or pulumi):
 *
 *   1. take the install lock `<folder>.lock` (lock.ts); whoever waited finds the folder installed and stops;
 *   2. download the archive to a staging folder inside the cache (same file system), hashing as it arrives;
 *   3. check the checksum when one is known, then extract it into a staging folder (strict: a corrupt archive fails);
 *   4. write `<folder>.partial`, move the extracted folder into place with one rename, remove the marker.
 *
 * A failure at any step leaves no plugin folder behind (a crash between 4's rename and the marker's removal leaves
 * a `.partial`, which Pulumi and stackyard both treat as "not installed" and repair on the next install).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, openSync, readSync, closeSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { extract } from 'tar';
import { pluginCacheDir, pluginDirName, pluginFileName } from './cache.js';
import { withInstallLock } from './lock.js';
import { installCommand, offlineInstallCommand } from './messages.js';
import { currentPlatform, PluginSourceError, sourceFor, type SourceRequest } from './sources.js';
import { describeSpec, type PluginSpec } from './types.js';

/** Where the plugin comes from: its download source, or a local binary, folder or archive (`--file`). */
export type PluginContent = { from: 'download' } | { from: 'file'; path: string };

/** Progress of one install, for a line per download. */
export type InstallProgress =
  | { phase: 'downloading'; spec: PluginSpec; url: string; size?: number }
  | { phase: 'installed'; spec: PluginSpec; url?: string; bytes: number; ms: number };

/** Options of an install. */
export interface InstallOptions {
  env: NodeJS.ProcessEnv;
  /** Replace an installed folder. */
  reinstall?: boolean;
  onProgress?: (p: InstallProgress) => void;
  /** The User-Agent sent with downloads. */
  userAgent?: string;
}

/** What an install did. */
export interface InstallResult {
  /** False when the plugin was already installed (possibly by another process while we waited for the lock). */
  installed: boolean;
  /** The plugin's folder. */
  path: string;
  url?: string;
}

/**
 * An install that failed; the message names the plugin, the URL tried and the command that fixes it. The reason
 * ends the sentence: a period it brings (an underlying error's message may end with one) is not doubled.
 */
export class PluginInstallError extends Error {
  override readonly name = 'PluginInstallError';
  constructor(readonly spec: PluginSpec, readonly url: string | undefined, readonly reason: string) {
    super(
      `could not install ${spec.kind} plugin ${describeSpec(spec)}${url ? ` from ${url}` : ''}: ${reason.replace(/\.+$/, '')}. ` +
        `Retry with \`${installCommand(spec)}\`, or install it offline with \`${offlineInstallCommand(spec)}\``,
    );
  }
}

/** A download answered with a non-2xx status or could not connect. */
class DownloadError extends Error {
  constructor(readonly url: string, message: string) {
    super(message);
  }
}

const STAGING = '.stackyard-staging';
/** Staging entries older than this belong to installs that died. */
const STALE_STAGING_MS = 60 * 60_000;

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

async function get(req: SourceRequest, userAgent: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(req.url, { headers: { 'User-Agent': userAgent, ...req.headers }, redirect: 'follow' });
  } catch (err) {
    throw new DownloadError(req.url, `cannot reach ${new URL(req.url).host} (${causeText(err)}); check the network, or install the plugin offline`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    const hint = new URL(req.url).host === 'api.github.com' && res.status === 404 ? '. If this is a private GitHub repository, set GITHUB_TOKEN' : '';
    throw new DownloadError(req.url, `${res.status} HTTP error fetching plugin from ${req.url}${hint}`);
  }
  return res;
}

/** Downloads the archive of `spec` to `file`; returns the URL used, the size and the SHA-256. */
async function download(spec: PluginSpec, file: string, opts: InstallOptions, userAgent: string): Promise<{ url: string; bytes: number; sha256: string }> {
  const { os, arch } = currentPlatform();
  const source = sourceFor(spec, opts.env);
  const getJson = async (req: SourceRequest) => (await get(req, userAgent)).json() as Promise<unknown>;
  let last: DownloadError | undefined;
  let res: Response | undefined;
  let url = source.url;
  try {
    for await (const req of source.archiveRequests(spec.version!, os, arch, getJson)) {
      url = req.url;
      try {
        res = await get(req, userAgent);
        break;
      } catch (err) {
        if (!(err instanceof DownloadError)) throw err;
        last = err;
      }
    }
  } catch (err) {
    if (err instanceof DownloadError) throw new PluginInstallError(spec, err.url, err.message);
    throw new PluginInstallError(spec, url, err instanceof Error ? err.message : String(err));
  }
  if (!res?.body) throw new PluginInstallError(spec, last?.url ?? url, last?.message ?? 'no download location answered');
  const length = Number(res.headers.get('content-length'));
  opts.onProgress?.({ phase: 'downloading', spec, url, size: Number.isFinite(length) && length > 0 ? length : undefined });
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), tap, createWriteStream(file));
  } catch (err) {
    throw new PluginInstallError(spec, url, `the download broke off after ${bytes} bytes (${causeText(err)})`);
  }
  return { url, bytes, sha256: hash.digest('hex') };
}

function expectedChecksum(spec: PluginSpec): string | undefined {
  const { os, arch } = currentPlatform();
  return spec.checksums?.[`${os}-${arch}`]?.toLowerCase();
}

function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function extractArchive(spec: PluginSpec, archive: string, into: string, url: string | undefined): Promise<void> {
  mkdirSync(into, { recursive: true });
  try {
    await extract({ file: archive, cwd: into, strict: true });
  } catch (err) {
    throw new PluginInstallError(spec, url, `the archive is not a valid .tar.gz (${err instanceof Error ? err.message : String(err)})`);
  }
}

function verifyChecksum(spec: PluginSpec, actual: string, url: string | undefined): void {
  const expected = expectedChecksum(spec);
  if (expected && expected !== actual) throw new PluginInstallError(spec, url, `invalid checksum, expected ${expected}, actual ${actual}`);
}

/** Fills `into` from a local binary, folder or archive (`plugin install --file`). */
async function stageFile(spec: PluginSpec, path: string, into: string): Promise<void> {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new PluginInstallError(spec, undefined, `${path} does not exist`);
  if (st.isDirectory()) {
    cpSync(path, into, { recursive: true });
    return;
  }
  if (isGzip(path)) {
    verifyChecksum(spec, await sha256Of(path), path);
    await extractArchive(spec, path, into, path);
    return;
  }
  if ((st.mode & 0o100) === 0) throw new PluginInstallError(spec, undefined, `${path} is not executable`);
  mkdirSync(into, { recursive: true });
  const target = join(into, pluginFileName(spec));
  copyFileSync(path, target);
  chmodSync(target, 0o755);
}

function cleanStaleStaging(stagingRoot: string): void {
  for (const entry of readdirSync(stagingRoot)) {
    const p = join(stagingRoot, entry);
    const age = Date.now() - (statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_STAGING_MS) rmSync(p, { recursive: true, force: true });
  }
}

/** Installs `spec` (which must have a version) into the plugin cache. */
export async function installPlugin(spec: PluginSpec, content: PluginContent, opts: InstallOptions): Promise<InstallResult> {
  if (!spec.version) throw new PluginInstallError(spec, undefined, 'a version is needed to install a plugin');
  const cache = pluginCacheDir(opts.env);
  const finalDir = join(cache, pluginDirName(spec));
  const partial = `${finalDir}.partial`;
  const stagingRoot = join(cache, STAGING);
  mkdirSync(stagingRoot, { recursive: true });
  const userAgent = opts.userAgent ?? 'stackyard';
  return withInstallLock(`${finalDir}.lock`, opts.env, async () => {
    if (!opts.reinstall && existsSync(finalDir) && !existsSync(partial)) return { installed: false, path: finalDir };
    cleanStaleStaging(stagingRoot);
    const stage = join(stagingRoot, `${pluginDirName(spec)}-${process.pid}-${randomBytes(4).toString('hex')}`);
    const archive = `${stage}.tar.gz`;
    const started = Date.now();
    try {
      let url: string | undefined;
      let bytes = 0;
      if (content.from === 'file') {
        await stageFile(spec, content.path, stage);
        url = content.path;
      } else {
        const got = await download(spec, archive, opts, userAgent);
        url = got.url;
        bytes = got.bytes;
        verifyChecksum(spec, got.sha256, url);
        await extractArchive(spec, archive, stage, url);
      }
      // Pulumi's order: the marker first, so nobody takes a folder in motion for an installed plugin.
      writeFileSync(partial, '', { mode: 0o600 });
      rmSync(finalDir, { recursive: true, force: true });
      renameSync(stage, finalDir);
      rmSync(partial, { force: true });
      opts.onProgress?.({ phase: 'installed', spec, url, bytes, ms: Date.now() - started });
      return { installed: true, path: finalDir, url };
    } catch (err) {
      if (err instanceof PluginSourceError) throw new PluginInstallError(spec, undefined, err.message);
      throw err;
    } finally {
      rmSync(stage, { recursive: true, force: true });
      rmSync(archive, { force: true });
    }
  });
}
