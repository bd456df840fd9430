/**
 * Provider instances by reference (`<provider urn>::<id>`): default providers per package and version, explicit
 * provider resources, and providers of old state loaded on demand (for deletes and refresh). Each instance is its
 * own plugin process, as in Pulumi.
 */
import { randomUUID } from 'node:crypto';
import { BuiltinProvider } from './builtin-provider.js';
import { findProviderPlugin, type DiscoveryOptions } from './plugin-discovery.js';
import { ProviderClient, type ProviderTimeouts } from './provider-client.js';
import type { PropertyMap } from './properties.js';
import { createUrn, formatProviderRef, urnName } from './urn.js';

/** The operations the engine uses on a provider. */
export type Provider = Pick<
  ProviderClient,
  'supportsPreview' | 'checkConfig' | 'configure' | 'check' | 'diff' | 'create' | 'update' | 'delete' | 'read' | 'invoke' | 'close'
>;

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
}

/** Name of a default provider: `default`, or `default_<version>` with non-identifier characters as `_`. */
export function defaultProviderName(version: string | undefined): string {
  return version ? `default_${version.replace(/[^A-Za-z0-9_]/g, '_')}` : 'default';
}

/** URN of the default provider for a package and version. */
export function defaultProviderUrn(stack: string, project: string, pkg: string, version: string | undefined): string {
  return createUrn(stack, project, undefined, `pulumi:providers:${pkg}`, defaultProviderName(version));
}

/** Keeps configured providers by reference. */
export class ProviderRegistry {
  private readonly byRef = new Map<string, Promise<Provider>>();
  private readonly all: Promise<Provider>[] = [];

  constructor(private readonly opts: RegistryOptions) {}

  /** Starts an unconfigured instance of a package's plugin. */
  launch(pkg: string, version: string | undefined): Promise<Provider> {
    const p: Promise<Provider> =
      pkg === 'pulumi'
        ? Promise.resolve(this.opts.builtins)
        : (async () => {
            const cmd = findProviderPlugin(pkg, version, this.opts.discovery);
            return ProviderClient.start(cmd, {
              engineAddress: this.opts.engineAddress(),
              programDir: this.opts.discovery.programDir,
              rootDir: this.opts.rootDir,
              env: { ...this.opts.env, ...this.opts.pluginEnv?.(pkg) },
              timeouts: this.opts.timeouts,
              onLog: this.opts.onLog ? (line) => this.opts.onLog!(pkg, line) : undefined,
            });
          })();
    this.all.push(p);
    return p;
  }

  /** Launches and configures the provider of a provider resource and files it under its reference. */
  async configureNew(urn: string, id: string, pkg: string, inputs: PropertyMap, launched?: Promise<Provider>): Promise<Provider> {
    const ref = formatProviderRef(urn, id);
    const existing = this.byRef.get(ref);
    if (existing) return existing;
    const p = (async () => {
      const provider = await (launched ?? this.launch(pkg, versionOf(inputs)));
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

/** The `version` input of a provider resource. */
export function versionOf(inputs: PropertyMap | undefined): string | undefined {
  const v = inputs?.version;
  return typeof v === 'string' && v !== '' ? v : undefined;
}
