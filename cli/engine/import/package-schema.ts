/**
 * A package's schema, as the generated code needs it: the provider plugin is started (the version its provider
 * resource records), asked `GetSchema`, and stopped. Only the parts code generation reads are typed.
 */
import { findProviderPlugin, type DiscoveryOptions } from '../plugins/plugin-discovery.js';
import { ProviderClient } from '../plugins/providers/provider-client.js';

/** A property's type in a schema (`type`, `items`, `additionalProperties`, `$ref`, `oneOf`). */
export interface SchemaType {
  type?: string;
  items?: SchemaType;
  additionalProperties?: SchemaType;
  $ref?: string;
  oneOf?: SchemaType[];
}

/** A property of a resource or an object type. */
export type SchemaProperty = SchemaType & { secret?: boolean };

/** A resource (or the provider) of a schema: its input properties and which are required. */
export interface SchemaResource {
  inputProperties?: Record<string, SchemaProperty>;
  requiredInputs?: string[];
}

/** An object type of a schema. */
export interface SchemaObjectType {
  type?: string;
  properties?: Record<string, SchemaProperty>;
  required?: string[];
  enum?: unknown[];
}

/** The parts of a package schema code generation reads. */
export interface PackageSchema {
  name: string;
  meta?: { moduleFormat?: string };
  language?: { nodejs?: { packageName?: string } };
  provider?: SchemaResource;
  resources?: Record<string, SchemaResource>;
  types?: Record<string, SchemaObjectType>;
}

/** Where the plugins are found, as for a run. */
export interface SchemaSource {
  discovery: DiscoveryOptions;
  rootDir: string;
  env: NodeJS.ProcessEnv;
}

/** Loads the schema of package `pkg` (at `version`) from its provider plugin. */
export async function loadPackageSchema(pkg: string, version: string | undefined, source: SchemaSource, pluginDownloadURL?: string): Promise<PackageSchema> {
  const cmd = findProviderPlugin(pkg, version, source.discovery, pluginDownloadURL);
  // GetSchema needs no engine; the address is only handed to the plugin
  const client = await ProviderClient.start(cmd, { engineAddress: '127.0.0.1:0', programDir: source.discovery.programDir, rootDir: source.rootDir, env: source.env });
  try {
    const text = await client.getSchema();
    const schema = JSON.parse(text || '{}') as PackageSchema;
    return { ...schema, name: schema.name || pkg };
  } finally {
    await client.close();
  }
}
