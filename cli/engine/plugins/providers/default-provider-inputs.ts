/** How stack configuration becomes provider inputs, following the Go engine's rules. */
import type { StackConfig } from '../../config/program-config.js';
import { makeSecret, type PropertyMap, type PropertyValue } from '../../resource/properties.js';

function configValue(value: string, secret: boolean, object: boolean | undefined): PropertyValue {
  let v: PropertyValue = value;
  if (object) {
    try {
      v = JSON.parse(value) as PropertyValue;
    } catch {
      v = value;
    }
  }
  return secret ? makeSecret(v) : v;
}

/**
 * Inputs of the default provider for `pkg`: its `pkg:*` keys without the namespace, plus `version`. The dynamic
 * provider (`pulumi-nodejs`) receives the whole stack config with namespaced keys.
 */
export function defaultProviderInputs(pkg: string, config: StackConfig, version: string | undefined): PropertyMap {
  const inputs: PropertyMap = {};
  for (const [key, v] of Object.entries(config)) {
    const i = key.indexOf(':');
    const ns = key.slice(0, i);
    if (pkg === 'pulumi-nodejs') inputs[key] = configValue(v.value, v.secret, v.object);
    else if (ns === pkg) inputs[key.slice(i + 1)] = configValue(v.value, v.secret, v.object);
  }
  if (version) inputs.version = version;
  return inputs;
}
