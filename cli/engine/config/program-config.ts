/**
 * The stack's configuration as the engine receives it, decrypted: what the program, the language plugins, the
 * default providers and the display all read. Its own room at the bottom of the engine, so none of them imports
 * the program host for it.
 */

/** A configuration value as the program sees it (already decrypted). */
export interface ConfigValue {
  value: string;
  secret: boolean;
  /** The value is structured config, serialized as JSON. */
  object?: boolean;
}

/** Stack configuration keyed `namespace:key`. */
export type StackConfig = Record<string, ConfigValue>;
