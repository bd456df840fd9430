/**
 * Provider instances by reference (`<provider urn>::<id>`): default providers per package and version, explicit
 * provider resources, and providers of old state loaded on demand (for deletes and refresh). Each instance is its
 * own plugin process, as in Pulumi.
 */
import { randomUUID } from 'node:crypto';
import type { PluginAcquirer } from '../../../plugins/acquire.js';
import { BuiltinProvider } from './builtin-provider.js';
import { findProviderPlugin, MissingPluginError, type DiscoveryOptions, type ProviderPluginCommand } from '../plugin-discovery.js';
import { hidingInternalInputs } from './provider-internals.js';
import { parameterizeProvider, providerPluginOf } from './parameterized.js';
import { ProviderClient, type ProviderTimeouts } from './provider-client.js';
import type { PropertyMap } from '../../resource/properties.js';
import { createUrn, formatProviderRef, urnName } from '../../resource/urn.js';

/** The operations the engine uses on a provider; plugins also build components (the builtin provider does not). */
export type Provider = Pick<
  ProviderClient,
  'supportsPreview' | 'checkConfig' | 'configure' | 'check' | 'diff' | 'create' | 'update' | 'delete' | 'read' | 'invoke' | 'close'
> &
  Partial<Pick<ProviderClient, 'construct' | 'callMethod' | 'parameterize' | 'acceptSecrets' | 'acceptResources' | 'acceptOutputs'>>;

/** Settings shared by every plugin launch. */
export interface RegistryOptions {
  discovery: DiscoveryOptions;
  engineAddress: () => string;
  rootDir: string;
  env: NodeJS.ProcessEnv;
  timeouts?: ProviderTimeouts;
  onLog?: (pkg: string, line: string) => void;
  builtins: BuiltinProvider;
  /** Variables added to `env` for one package's plugin (see `providerEnv`). */
  pluginEnv?: (pkg: string) => Record<string, string>;
  /** Installs a missing plugin (with the version and `pluginDownloadURL` asked for) before it is started. */
  acquirer?: PluginAcquirer;
  /** Warnings for the user (an ambient plugin from PATH is in use, as Pulumi warns). */
  onWarning?: (message: string) => void;
  /** `--logflow`'s arguments for each provider plugin started. */
  loggingArgs?: readonly string[];
}

/**
 * Name of a default provider, as Pulumi's `ProviderRequest.DefaultName`: `default`, then `_<version>` with
 * non-identifier characters as `_`, then `_<pluginDownloadURL>` as a QName (each `/`-separated part keeps
 * `[A-Za-z0-9_.-]`, anything else becomes `_`; empty parts and a trailing `/` are dropped).
 */
export function defaultProviderName(version: string | undefined, pluginDownloadURL?: string): string {
  let name = version ? `default_${version.replace(/[^A-Za-z0-9_]/g, '_')}` : 'default';
  const url = pluginDownloadURL?.replace(/\/+$/, '');
  if (url) name += `_${url.split('/').filter(Boolean).map((part) => part.replace(/[^A-Za-z0-9_.-]/g, '_')).join('/')}`;
  return name;
}

/** URN of the default provider for a package, version and download URL. */
export function defaultProviderUrn(stack: string, project: string, pkg: string, version: string | undefined, pluginDownloadURL?: string): string {
  return createUrn(stack, project, undefined, `pulumi:providers:${pkg}`, defaultProviderName(version, pluginDownloadURL));
}

/** Keeps configured providers by reference. */
export class ProviderRegistry {
  private readonly byRef = new Map<string, Promise<Provider>>();
  private readonly all: Promise<Provider>[] = [];
  private readonly warnedAmbient = new Set<string>();

  constructor(private readonly opts: RegistryOptions) {}

  /** Starts an unconfigured instance of a package's plugin, installing it first when it is missing. */
  launch(pkg: string, version: string | undefined, pluginDownloadURL?: string): Promise<Provider> {
    const p: Promise<Provider> =
      pkg === 'pulumi'
        ? Promise.resolve(this.opts.builtins)
        : (async () => {
            const cmd = await this.command(pkg, version, pluginDownloadURL);
            const client = await ProviderClient.start(cmd, {
              engineAddress: this.opts.engineAddress(),
              loggingArgs: this.opts.loggingArgs,
              programDir: this.opts.discovery.programDir,
              rootDir: this.opts.rootDir,
              env: { ...this.opts.env, ...this.opts.pluginEnv?.(pkg) },
              timeouts: this.opts.timeouts,
              onLog: this.opts.onLog ? (line) => this.opts.onLog!(pkg, line) : undefined,
            });
            return hidingInternalInputs(client);
          })();
    this.all.push(p);
    return p;
  }

  /**
   * Starts the plugin a provider resource's inputs name (its base plugin, parameterized, when they record a
   * parameterization), unconfigured.
   */
  launchFor(type: string, inputs: PropertyMap): Promise<Provider> {
    let plugin;
    try {
      plugin = providerPluginOf(type, inputs);
    } catch (err) {
      return Promise.reject(err);
    }
    const launched = this.launch(plugin.name, plugin.version, plugin.pluginDownloadURL);
    const { parameterization } = plugin;
    return parameterization ? launched.then((p) => parameterizeProvider(p, parameterization)) : launched;
  }

  private async command(pkg: string, version: string | undefined, pluginDownloadURL: string | undefined): Promise<ProviderPluginCommand> {
    let cmd: ProviderPluginCommand;
    try {
      cmd = findProviderPlugin(pkg, version, this.opts.discovery, pluginDownloadURL);
    } catch (err) {
      // A version or download URL that the required-plugins pass did not see (as in Pulumi's loadProvider).
      if (!(err instanceof MissingPluginError) || !this.opts.acquirer?.enabled) throw err;
      await this.opts.acquirer.ensure(err.spec);
      cmd = findProviderPlugin(pkg, version, this.opts.discovery, pluginDownloadURL);
    }
    if (cmd.found?.source === 'ambient' && !this.warnedAmbient.has(cmd.command)) {
      this.warnedAmbient.add(cmd.command);
      this.opts.onWarning?.(`using pulumi-resource-${pkg} from $PATH at ${cmd.command}`);
    }
    return cmd;
  }

  /** Launches and configures the provider of a provider resource and files it under its reference. */
  async configureNew(urn: string, id: string, pkg: string, inputs: PropertyMap, launched?: Promise<Provider>): Promise<Provider> {
    const ref = formatProviderRef(urn, id);
    const existing = this.byRef.get(ref);
    if (existing) return existing;
    const p = (async () => {
      const provider = await (launched ?? this.launchFor(`pulumi:providers:${pkg}`, inputs));
      await provider.configure({ urn, id, name: urnName(urn), type: `pulumi:providers:${pkg}` }, inputs, pkg);
      return provider;
    })();
    this.byRef.set(ref, p);
    return p;
  }

  /** The provider for a reference, if one was configured this run. */
  get(ref: string): Promise<Provider> | undefined {
    return this.byRef.get(ref);
  }

  /** A fresh provider id. */
  static newId(): string {
    return randomUUID();
  }

  /** Stops every plugin process. */
  async closeAll(): Promise<void> {
    const results = await Promise.allSettled(this.all);
    await Promise.allSettled(results.map((r) => (r.status === 'fulfilled' ? r.value.close() : Promise.resolve())));
  }
}

