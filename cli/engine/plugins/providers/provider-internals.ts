/**
 * The engine's own keys in a provider resource's inputs: `__internal` (`pluginDownloadURL`, `pluginChecksums`,
 * `name`, …) is recorded in state but never shown to the plugin, as in Pulumi's `FilterProviderConfig`.
 */
import type { PropertyMap, PropertyValue } from '../../resource/properties.js';
import type { ProviderClient } from './provider-client.js';

/** The calls of a provider that see its configuration. */
type ConfiguredCalls = Pick<ProviderClient, 'checkConfig' | 'configure'>;

const INTERNAL = '__internal';

function internalOf(inputs: PropertyMap | undefined): Record<string, PropertyValue> | undefined {
  const v = inputs?.[INTERNAL];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, PropertyValue>) : undefined;
}

/** `inputs` without `__internal`. */
export function withoutInternal(inputs: PropertyMap): PropertyMap {
  if (!(INTERNAL in inputs)) return inputs;
  const { [INTERNAL]: _internal, ...rest } = inputs;
  return rest;
}

/** The `pluginDownloadURL` a provider resource's inputs record (under `__internal`). */
export function pluginDownloadUrlOf(inputs: PropertyMap | undefined): string | undefined {
  const v = internalOf(inputs)?.pluginDownloadURL;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Inputs of a default provider asked for with `pluginDownloadURL`: recorded under `__internal`, as Pulumi does. */
export function withPluginDownloadUrl(inputs: PropertyMap, url: string | undefined): PropertyMap {
  return url ? { ...inputs, [INTERNAL]: { ...(internalOf(inputs) ?? {}), pluginDownloadURL: url } } : inputs;
}

/**
 * A provider whose CheckConfig and Configure never see `__internal`; the checked inputs get the caller's
 * `__internal` back so the state keeps it.
 */
export function hidingInternalInputs<P extends ConfiguredCalls>(provider: P): P {
  return new Proxy(provider, {
    get(target, prop) {
      if (prop === 'checkConfig') {
        return async (ref: Parameters<ProviderClient['checkConfig']>[0], olds: PropertyMap, news: PropertyMap) => {
          const checked = await target.checkConfig(ref, withoutInternal(olds), withoutInternal(news));
          const internal = news[INTERNAL];
          return internal === undefined ? checked : { ...checked, inputs: { ...checked.inputs, [INTERNAL]: internal } };
        };
      }
      if (prop === 'configure') {
        return (ref: Parameters<ProviderClient['configure']>[0], inputs: PropertyMap, pkg: string) => target.configure(ref, withoutInternal(inputs), pkg);
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
