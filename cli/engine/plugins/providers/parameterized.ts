/**
 * Packages and parameterized providers (Pulumi's `providers.ProviderRequest` and the `__internal` keys of
 * pkg/resource/deploy/providers/registry.go). A package registered with a parameterization is served by its base
 * plugin, told by `Parameterize` which sub-package to be before it is configured. The provider resource records it
 * all, so a later run without the program (destroy, refresh) starts the same provider from the state alone:
 *
 *     inputs.version                       the sub-package's version (the base plugin's version without one)
 *     inputs.__internal.name               the base plugin's name (the type names the sub-package)
 *     inputs.__internal.version            the base plugin's version
 *     inputs.__internal.parameterization   the parameter value, base64
 *     inputs.__internal.pluginDownloadURL  where the base plugin is downloaded from
 */
import { providerPluginSpec } from '../../../plugins/required.js';
import type { PropertyMap, PropertyValue } from '../../resource/properties.js';
import { packageOfType } from '../../resource/urn.js';
import { withPluginDownloadUrl } from './provider-internals.js';

/** The sub-package a parameterized provider becomes (RegisterPackageRequest's `parameterization`). */
export interface Parameterization {
  name: string;
  version: string;
  value: Uint8Array;
}

/** What a package reference stands for: a provider plugin, optionally parameterized (Go's `ProviderRequest`). */
export interface PackageRequest {
  /** The plugin's name (the base plugin's, when parameterized). */
  name: string;
  version?: string;
  pluginDownloadURL?: string;
  parameterization?: Parameterization;
}

/** The plugin that serves a provider resource, and what to parameterize it with. */
export interface ProviderPlugin {
  name: string;
  version?: string;
  pluginDownloadURL?: string;
  parameterization?: Parameterization;
}

/** The package a request's resources and provider belong to: the sub-package's name when parameterized. */
export function packageNameOf(req: PackageRequest): string {
  return req.parameterization?.name ?? req.name;
}

/** The version a request's default provider is named by: the sub-package's when parameterized. */
export function packageVersionOf(req: PackageRequest): string | undefined {
  return req.parameterization?.version ?? req.version;
}

/** A key equal for requests Pulumi treats as one default provider (`ProviderRequest.String`). */
export function packageRequestKey(req: PackageRequest): string {
  return `${packageNameOf(req)}@${packageVersionOf(req) ?? ''}@${req.pluginDownloadURL ?? ''}`;
}

function internalOf(inputs: PropertyMap): Record<string, PropertyValue> {
  const v = inputs.__internal;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, PropertyValue>) : {};
}

/**
 * Provider inputs with what a package request records, as Go's `SetProviderVersion`, `SetProviderURL`,
 * `SetProviderName` and `SetProviderParameterization` in that order. A recorded version comes with `__internal`
 * (empty if nothing else), so a config key such as `name` is never read as the engine's own; when parameterized,
 * the base plugin's version moves under `__internal` and the sub-package's version takes its place.
 */
export function withPackageRequest(inputs: PropertyMap, req: PackageRequest): PropertyMap {
  let out = withPluginDownloadUrl(inputs, req.pluginDownloadURL);
  if (req.version) out = { ...out, version: req.version, __internal: internalOf(out) };
  const p = req.parameterization;
  if (!p) return out;
  const internal: Record<string, PropertyValue> = { ...internalOf(out), name: req.name };
  if (out.version !== undefined) internal.version = out.version;
  internal.parameterization = Buffer.from(p.value).toString('base64');
  return { ...out, version: p.version, __internal: internal };
}

/**
 * The plugin of a provider resource from its type and recorded inputs (Go's `GetProviderName`,
 * `GetProviderVersion`, `GetProviderDownloadURL` and `GetProviderParameterization`). A recorded parameterization
 * must be base64 and come with the sub-package's version, as Pulumi requires.
 */
export function providerPluginOf(type: string, inputs: PropertyMap): ProviderPlugin {
  const spec = providerPluginSpec(type, inputs);
  const plugin: ProviderPlugin = {
    name: spec?.name ?? packageOfType(type),
    ...(spec?.version ? { version: spec.version } : {}),
    ...(spec?.pluginDownloadURL ? { pluginDownloadURL: spec.pluginDownloadURL } : {}),
  };
  const raw = internalOf(inputs).parameterization;
  if (raw === undefined) return plugin;
  if (typeof raw !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(raw)) {
    throw new Error(`the provider ${type} records a parameterization that is not base64 text`);
  }
  const version = inputs.version;
  if (typeof version !== 'string' || version === '') throw new Error(`the parameterized provider ${type} records no 'version'`);
  return { ...plugin, parameterization: { name: packageOfType(type), version, value: Buffer.from(raw, 'base64') } };
}

/** What `Parameterize` needs of a provider. */
export interface Parameterizable {
  parameterize?(p: Parameterization): Promise<{ name: string; version: string }>;
}

/**
 * Parameterizes a started base plugin (Go's `loadParameterizedProvider`): the plugin must answer with the name
 * asked for.
 */
export async function parameterizeProvider<P extends Parameterizable>(provider: P, p: Parameterization): Promise<P> {
  if (!provider.parameterize) throw new Error(`the provider of ${p.name} cannot be parameterized`);
  const res = await provider.parameterize(p);
  if (res.name !== p.name) throw new Error(`parameterize response name "${res.name}" does not match expected package "${p.name}"`);
  return provider;
}
