/** Which steps the display leaves out whatever the flags: Pulumi's engine-internal steps. */
import type { StepEvent } from './events.js';
import { urnName } from '../resource/urn.js';

/**
 * A default provider's step (`pulumi:providers:<pkg>::default` or `default_<version>`): internal to Pulumi's engine,
 * so neither shown nor counted in the summary (`isDefaultProviderStep` in Pulumi's `pkg/engine`).
 */
export function isDefaultProviderStep(e: Pick<StepEvent, 'type' | 'urn'>): boolean {
  if (!e.type.startsWith('pulumi:providers:')) return false;
  const name = urnName(e.urn);
  return name === 'default' || name.startsWith('default_');
}
