/**
 * Automatic plugin acquisition for engine runs: installs the plugins a run needs when they are missing, in
 * parallel, each at most once per process, with a progress line per download. `PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION`
 * turns it off, as in Pulumi: a missing plugin is then an error naming the install command.
 */
import { formatBytes } from './format.js';
import { installPlugin, PluginInstallError, type InstallProgress } from './install.js';
import { envFlag, MissingPluginError, resolvePlugin, ambientPluginsEnabled, type ResolveOptions } from './resolve.js';
import { sourceFor } from './sources.js';
import { describeSpec, type PluginSpec, type ProjectPlugin } from './types.js';

/** Settings of an acquirer. */
export interface AcquireOptions {
  env: NodeJS.ProcessEnv;
  projectPlugins?: readonly ProjectPlugin[];
  projectDir?: string;
  /** Receives one line per download start and finish (no newline). */
  progress?: (line: string) => void;
  userAgent?: string;
}

/** Several plugins failed to install; each message says how to fix it. */
export class PluginAcquisitionError extends Error {
  override readonly name = 'PluginAcquisitionError';
  constructor(readonly failures: readonly Error[]) {
    super(failures.length === 1 ? failures[0]!.message : `${failures.length} plugins could not be installed:\n${failures.map((f) => `  - ${f.message}`).join('\n')}`);
  }
}

/** Plugins built into the engine or resolved from the program itself; never downloaded. */
function isBuiltin(spec: PluginSpec): boolean {
  return spec.kind === 'resource' && (spec.name === 'pulumi' || spec.name === 'pulumi-nodejs');
}

function specKey(spec: PluginSpec): string {
  return `${spec.kind}/${spec.name}/${spec.version ?? ''}/${spec.pluginDownloadURL ?? ''}`;
}

/** Installs missing plugins for one CLI process. */
export class PluginAcquirer {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly o: AcquireOptions) {}

  private get resolveOptions(): ResolveOptions {
    return { env: this.o.env, projectPlugins: this.o.projectPlugins, projectDir: this.o.projectDir };
  }

  /** True unless `PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION` is set. */
  get enabled(): boolean {
    return !envFlag(this.o.env, 'PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION');
  }

  /** Makes sure every plugin in `specs` can be found; installs the missing ones in parallel. */
  async ensureAll(specs: readonly PluginSpec[]): Promise<void> {
    const unique = new Map<string, PluginSpec>();
    for (const s of specs) if (!isBuiltin(s)) unique.set(specKey(s), s);
    const results = await Promise.allSettled([...unique.values()].map((s) => this.ensure(s)));
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason instanceof Error ? r.reason : new Error(String(r.reason))] : []));
    if (failures.length) throw new PluginAcquisitionError(failures);
  }

  /** Makes sure `spec` can be found, installing it when missing (once per process for the same spec). */
  ensure(spec: PluginSpec): Promise<void> {
    if (isBuiltin(spec) || resolvePlugin(spec, this.resolveOptions)) return Promise.resolve();
    const key = specKey(spec);
    let p = this.inFlight.get(key);
    if (!p) {
      p = this.install(spec);
      this.inFlight.set(key, p);
    }
    return p;
  }

  private async install(spec: PluginSpec): Promise<void> {
    if (!this.enabled) throw new MissingPluginError(spec, ambientPluginsEnabled(this.o.env));
    let version = spec.version;
    if (!version) {
      try {
        version = await sourceFor(spec, this.o.env).latestVersion(async (req) => {
          const res = await fetch(req.url, { headers: req.headers });
          if (!res.ok) throw new Error(`${res.status} HTTP error from ${req.url}`);
          return res.json();
        });
      } catch (err) {
        throw new PluginInstallError(spec, undefined, `could not find its latest version (${err instanceof Error ? err.message : String(err)}); give the version`);
      }
    }
    const target = { ...spec, version };
    await installPlugin(target, { from: 'download' }, { env: this.o.env, userAgent: this.o.userAgent, onProgress: (p) => this.report(p) });
  }

  private report(p: InstallProgress): void {
    const label = `${p.spec.kind} plugin ${describeSpec(p.spec)}`;
    if (p.phase === 'downloading') this.o.progress?.(`Downloading ${label} from ${p.url}${p.size ? ` (${formatBytes(p.size)})` : ''}`);
    else this.o.progress?.(`Installed ${label} (${formatBytes(p.bytes)} in ${p.ms} ms)`);
  }
}
