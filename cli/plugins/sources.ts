/**
 * Where a plugin is downloaded from, chosen as Pulumi chooses it (`PluginDescriptor.GetSource`): the plugin's
 * `pluginDownloadURL` (`https://…`, `github://`, `gitlab://`), else Pulumi's default (GitHub releases of
 * `pulumi/pulumi-<name>`, then get.pulumi.com); the source's URL is then matched against
 * `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` (`regexp=url` pairs, comma separated, first match wins, `$1`/`${name}`
 * filled from the match). Archives are named `pulumi-<kind>-<name>-v<version>-<os>-<arch>.tar.gz`.
 */
import type { PluginKind, PluginSpec } from './types.js';

/** Pulumi's platform names (`runtime.GOOS`-`runtime.GOARCH`). */
export function currentPlatform(): { os: string; arch: string } {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return { os, arch };
}

/** `pulumi-<kind>-<name>-v<version>-<os>-<arch>.tar.gz`. */
export function assetName(kind: PluginKind, name: string, version: string, os: string, arch: string): string {
  return `pulumi-${kind}-${name}-v${version}-${os}-${arch}.tar.gz`;
}

/** A bad plugin source or override (a user's configuration mistake). */
export class PluginSourceError extends Error {
  override readonly name = 'PluginSourceError';
}

/** One parsed override. */
interface Override {
  pattern: RegExp;
  url: string;
}

/** Parses `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` (`regexp1=URL1,regexp2=URL2`); Go's `(?P<name>…)` groups work. */
export function parseOverrides(value: string | undefined): Override[] {
  if (!value) return [];
  return value.split(',').map((pair) => {
    const parts = pair.split('=');
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      throw new PluginSourceError(`PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: expected format to be "regexp1=URL1,regexp2=URL2"; got ${JSON.stringify(value)}`);
    }
    try {
      return { pattern: new RegExp(parts[0].replaceAll('(?P<', '(?<')), url: parts[1] };
    } catch (err) {
      throw new PluginSourceError(`PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: ${JSON.stringify(parts[0])} is not a valid regular expression: ${(err as Error).message}`);
    }
  });
}

/** The override URL for `url`, with `$<n>` and `${<name>}` filled from the match, or `undefined`. */
export function applyOverride(overrides: readonly Override[], url: string): string | undefined {
  for (const o of overrides) {
    const m = o.pattern.exec(url);
    if (!m) continue;
    let result = o.url;
    m.forEach((group, i) => (result = result.replaceAll(`$${i}`, group ?? '')));
    for (const [name, group] of Object.entries(m.groups ?? {})) result = result.replaceAll(`\${${name}}`, group ?? '');
    return result;
  }
  return undefined;
}

/** One HTTP request a source makes. */
export interface SourceRequest {
  url: string;
  headers: Record<string, string>;
}

/** How a source finds an archive: the request to make, possibly after looking up a release over JSON. */
export interface PluginSource {
  /** The URL that identifies the source (matched against overrides; shown in messages). */
  readonly url: string;
  /** The archive requests to try in order (the first that answers 2xx wins). */
  archiveRequests(version: string, os: string, arch: string, getJson: (req: SourceRequest) => Promise<unknown>): AsyncIterable<SourceRequest>;
  /** The latest released version, when the source can tell. */
  latestVersion(getJson: (req: SourceRequest) => Promise<unknown>): Promise<string>;
}

class HttpSource implements PluginSource {
  constructor(readonly url: string, private readonly kind: PluginKind, private readonly name: string) {}

  async *archiveRequests(version: string, os: string, arch: string): AsyncIterable<SourceRequest> {
    // The template may be written plainly or already URL-escaped, as Pulumi receives it.
    const fill = (s: string, key: string, value: string) => s.replaceAll(`\${${key}}`, value).replaceAll(`$%7B${key}%7D`, value);
    let base = this.url;
    for (const [key, value] of [['NAME', this.name], ['VERSION', version], ['OS', os], ['ARCH', arch]] as const) base = fill(base, key, encodeURIComponent(value));
    yield { url: `${base.replace(/\/+$/, '')}/${encodeURIComponent(assetName(this.kind, this.name, version, os, arch))}`, headers: {} };
  }

  async latestVersion(): Promise<string> {
    throw new PluginSourceError(`${this.url} cannot tell the latest version of a plugin; give a version`);
  }
}

class GithubSource implements PluginSource {
  readonly url: string;
  constructor(
    private readonly host: string,
    private readonly org: string,
    private readonly repo: string,
    private readonly kind: PluginKind,
    private readonly name: string,
    private readonly token: string | undefined,
  ) {
    this.url = `github://${host}/${org}/${repo}`;
  }

  private headers(accept: string): Record<string, string> {
    return { Accept: accept, ...(this.token ? { Authorization: `token ${this.token}` } : {}) };
  }

  async *archiveRequests(version: string, os: string, arch: string, getJson: (req: SourceRequest) => Promise<unknown>): AsyncIterable<SourceRequest> {
    const asset = assetName(this.kind, this.name, version, os, arch);
    // Pulumi's own plugins are fetched by their direct release URL first, which costs no API quota.
    if (this.org === 'pulumi' && this.host === 'api.github.com') {
      yield { url: `https://github.com/${this.org}/${this.repo}/releases/download/v${version}/${asset}`, headers: { Accept: 'application/octet-stream' } };
    }
    const release = (await getJson({ url: `https://${this.host}/repos/${this.org}/${this.repo}/releases/tags/v${version}`, headers: this.headers('application/json') })) as {
      assets?: { name?: string; url?: string }[];
    };
    const found = release.assets?.find((a) => a.name === asset)?.url;
    if (!found) throw new PluginSourceError(`plugin asset '${asset}' not found in release v${version} of ${this.url}`);
    yield { url: found, headers: this.headers('application/octet-stream') };
  }

  async latestVersion(getJson: (req: SourceRequest) => Promise<unknown>): Promise<string> {
    const release = (await getJson({ url: `https://${this.host}/repos/${this.org}/${this.repo}/releases/latest`, headers: this.headers('application/json') })) as { tag_name?: string };
    if (!release.tag_name) throw new PluginSourceError(`${this.url} has no latest release`);
    return release.tag_name.replace(/^v/, '');
  }
}

class GitlabSource implements PluginSource {
  readonly url: string;
  constructor(
    private readonly host: string,
    private readonly project: string,
    private readonly kind: PluginKind,
    private readonly name: string,
    private readonly token: string | undefined,
  ) {
    this.url = `gitlab://${host}/${project}`;
  }

  private headers(accept: string): Record<string, string> {
    return { Accept: accept, ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}) };
  }

  async *archiveRequests(version: string, os: string, arch: string): AsyncIterable<SourceRequest> {
    const asset = assetName(this.kind, this.name, version, os, arch);
    yield { url: `https://${this.host}/api/v4/projects/${this.project}/releases/v${version}/downloads/${asset}`, headers: this.headers('application/octet-stream') };
  }

  async latestVersion(getJson: (req: SourceRequest) => Promise<unknown>): Promise<string> {
    const release = (await getJson({ url: `https://${this.host}/api/v4/projects/${this.project}/releases/permalink/latest`, headers: this.headers('application/json') })) as { tag_name?: string };
    if (!release.tag_name) throw new PluginSourceError(`${this.url} has no latest release`);
    return release.tag_name.replace(/^v/, '');
  }
}

/** Pulumi's default: GitHub releases of `pulumi/<repo>`, then get.pulumi.com (itself subject to overrides). */
class FallbackSource implements PluginSource {
  readonly url: string;
  constructor(private readonly github: GithubSource, private readonly getPulumi: PluginSource) {
    this.url = github.url;
  }

  async *archiveRequests(version: string, os: string, arch: string, getJson: (req: SourceRequest) => Promise<unknown>): AsyncIterable<SourceRequest> {
    try {
      yield* this.github.archiveRequests(version, os, arch, getJson);
    } catch {
      // GitHub could not name the asset: get.pulumi.com is next, as in Pulumi
    }
    yield* this.getPulumi.archiveRequests(version, os, arch, getJson);
  }

  latestVersion(getJson: (req: SourceRequest) => Promise<unknown>): Promise<string> {
    return this.github.latestVersion(getJson);
  }
}

const GET_PULUMI_URL = 'https://get.pulumi.com/releases/plugins';

/** The default GitHub repository of a plugin: `pulumi-<name>`, `pulumi-converter-<name>`, `pulumi-tool-<name>`. */
function defaultRepo(kind: PluginKind, name: string): string {
  if (kind === 'converter') return name === 'yaml' || name === 'hcl' ? `pulumi-${name}` : `pulumi-converter-${name}`;
  if (kind === 'tool') return name.startsWith('pulumi-tool-') ? name : `pulumi-tool-${name}`;
  return `pulumi-${name}`;
}

/** A source for an explicit URL. */
export function sourceForUrl(raw: string, kind: PluginKind, name: string, env: NodeJS.ProcessEnv): PluginSource {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PluginSourceError(`${JSON.stringify(raw)} is not a plugin download URL (use https://…, github://<host>/<org>[/<repo>] or gitlab://<host>/<project>)`);
  }
  const parts = url.pathname.replace(/^\/+|\/+$/g, '').split('/');
  switch (url.protocol) {
    case 'http:':
    case 'https:':
      return new HttpSource(raw, kind, name);
    case 'github:':
      if (!url.host) throw new PluginSourceError(`github:// url must have a host part, was: ${raw}`);
      if (!parts[0] || parts.length > 2) throw new PluginSourceError(`github:// url must have the format <host>/<organization>[/<repository>], was: ${raw}`);
      return new GithubSource(url.host, parts[0], parts[1] ?? defaultRepo(kind, name), kind, name, env.GITHUB_TOKEN || undefined);
    case 'gitlab:':
      if (!url.host) throw new PluginSourceError(`gitlab:// url must have a host part, was: ${raw}`);
      if (!parts[0] || parts.length !== 1) throw new PluginSourceError(`gitlab:// url must have the format <host>/<project>, was: ${raw}`);
      return new GitlabSource(url.host, parts[0], kind, name, env.GITLAB_TOKEN || undefined);
    case 'git:':
      throw new PluginSourceError(`git:// plugin sources (${raw}) are not supported by stackyard; build the plugin and install it with \`stackyard plugin install … --file\``);
    default:
      throw new PluginSourceError(`unknown plugin source scheme: ${JSON.stringify(url.protocol.replace(/:$/, ''))} in ${raw}`);
  }
}

/** The source of a plugin after `pluginDownloadURL`, the default and overrides are applied. */
export function sourceFor(spec: PluginSpec, env: NodeJS.ProcessEnv): PluginSource {
  const overrides = parseOverrides(env.PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES);
  let source: PluginSource;
  if (spec.pluginDownloadURL) {
    source = sourceForUrl(spec.pluginDownloadURL, spec.kind, spec.name, env);
  } else {
    const github = sourceForUrl(`github://api.github.com/pulumi/${defaultRepo(spec.kind, spec.name)}`, spec.kind, spec.name, env) as GithubSource;
    const getPulumiUrl = applyOverride(overrides, GET_PULUMI_URL) ?? GET_PULUMI_URL;
    source = new FallbackSource(github, new HttpSource(getPulumiUrl, spec.kind, spec.name));
  }
  const override = applyOverride(overrides, source.url);
  return override === undefined ? source : sourceForUrl(override, spec.kind, spec.name, env);
}
