/**
 * A `--config` file of `policy enable` / `validate-config`, read as Pulumi's `loadPolicyConfigFromFile`: parsed and
 * checked like a `--policy-pack-config` file, then each policy's entry sent as one object (its properties, with
 * `enforcementLevel` among them when given).
 */
import { loadPolicyConfigFile } from '../../engine/plugins/analyzers/policy-config.js';
import { UserError } from '../../output/errors.js';

export function readPolicyConfigForService(file: string): Record<string, Record<string, unknown>> {
  let given;
  try {
    given = loadPolicyConfigFile(file);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const config: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(given)) {
    config[name] = { ...(entry.properties ?? {}), ...(entry.enforcementLevel ? { enforcementLevel: entry.enforcementLevel } : {}) };
  }
  return config;
}
