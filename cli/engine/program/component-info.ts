/** What Construct and Call tell a component provider about the deployment it builds into. */
import type { StackConfig } from '../config/program-config.js';

/** The deployment a component is built in (Pulumi's `ConstructInfo`). */
export interface ComponentRunInfo {
  project: string;
  stack: string;
  organization: string;
  config: StackConfig;
  dryRun: boolean;
  parallel: number;
  /** The monitor the provider registers the component's resources with (this engine's). */
  monitorAddress: () => string;
}

/** The stack config as Construct and Call carry it: `namespace:key` to the (decrypted) value, and the secret keys. */
export function componentConfig(config: StackConfig): { values: [string, string][]; secretKeys: string[] } {
  const values = Object.entries(config).map(([k, v]): [string, string] => [k, v.value]);
  return { values, secretKeys: Object.entries(config).filter(([, v]) => v.secret).map(([k]) => k) };
}
