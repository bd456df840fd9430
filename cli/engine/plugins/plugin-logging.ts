/**
 * `--logflow`: Pulumi hands its logging settings to every plugin it starts (`buildPluginArguments` in
 * sdk/go/common/resource/plugin): `--logtostderr` when the CLI logs to stderr, and `-v=<level>` when it logs at
 * all, ahead of the plugin's own arguments (the engine address). Without `--logflow` plugins get neither.
 */

/** Pulumi's logging flags of one command. */
export interface LoggingSettings {
  /** `-v <level>` (0: not given). */
  verbosity: number;
  /** `--logtostderr`. */
  toStderr: boolean;
  /** `--logflow`. */
  flow: boolean;
}

/** The arguments a plugin gets before the engine address. */
export function pluginLoggingArgs(settings: LoggingSettings | undefined): string[] {
  if (!settings?.flow) return [];
  return [...(settings.toStderr ? ['--logtostderr'] : []), ...(settings.verbosity > 0 ? [`-v=${settings.verbosity}`] : [])];
}
