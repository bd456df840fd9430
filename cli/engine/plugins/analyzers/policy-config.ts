/**
 * A pack's configuration as Pulumi's `resource/analyzer/config.go` builds it: the file given with
 * `--policy-pack-config` (a policy's value is its enforcement level, or an object of properties that may hold
 * `enforcementLevel`; `all` sets every policy's level), laid over each policy's schema defaults and the pack's
 * initial config, then validated against each policy's schema.
 */
import { readFileSync } from 'node:fs';
import { ENFORCEMENT_LEVELS, type EnforcementLevel, type PolicyConfigEntry, type PolicyInfo } from './analyzer-types.js';
import { validateSchema } from '../../../../shared/core/policy/config-schema.js';

/** A config entry as a file gives it: either part may be missing. */
export interface GivenPolicyConfig {
  enforcementLevel?: EnforcementLevel;
  properties?: Record<string, unknown>;
}

function isLevel(v: unknown): v is EnforcementLevel {
  return typeof v === 'string' && (ENFORCEMENT_LEVELS as readonly string[]).includes(v);
}

/** Parses a policy pack config file (Pulumi's `parsePolicyPackConfig`); errors name the file. */
export function loadPolicyConfigFile(file: string): Record<string, GivenPolicyConfig> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`could not read policy pack config file ${file}: ${(err as Error).message}`);
  }
  if (!text.trim()) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`policy pack config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`policy pack config file ${file} must hold a JSON object`);
  const result: Record<string, GivenPolicyConfig> = {};
  for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
    if (name === 'environments') throw new Error(`policy pack config file ${file}: "environments" (ESC environments for packs) is not supported by stackyard yet`);
    const entry = parseEntry(name, value, file);
    if (entry.enforcementLevel || entry.properties) result[name] = entry;
  }
  return result;
}

/**
 * A policy group's config for a required pack, as the service sends it (Pulumi's `ParsePolicyPackConfigFromAPI`):
 * each policy's value an object of properties that may hold `enforcementLevel`; empty entries dropped.
 */
export function parsePolicyConfigFromApi(config: Record<string, unknown> | undefined, packName: string): Record<string, GivenPolicyConfig> {
  const result: Record<string, GivenPolicyConfig> = {};
  for (const [name, value] of Object.entries(config ?? {})) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`the config of required policy pack "${packName}" for "${name}" is not an object`);
    const entry = parseEntry(name, value, `the config of required policy pack "${packName}"`);
    if (entry.enforcementLevel || entry.properties) result[name] = entry;
  }
  return result;
}

function parseEntry(name: string, value: unknown, file: string): GivenPolicyConfig {
  if (typeof value === 'string') {
    if (!isLevel(value)) throw new Error(`${file}: parsing enforcement level for "${name}": "${value}" is not a valid enforcement level`);
    return { enforcementLevel: value };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${file}: parsing "${name}": ${JSON.stringify(value)} is not a valid value; must be a string or object`);
  }
  const props = { ...(value as Record<string, unknown>) };
  let enforcementLevel: EnforcementLevel | undefined;
  if ('enforcementLevel' in props) {
    const level = props.enforcementLevel;
    if (typeof level !== 'string') throw new Error(`${file}: parsing enforcement level for "${name}": ${JSON.stringify(level)} is not a valid enforcement level; must be a string`);
    if (!isLevel(level)) throw new Error(`${file}: parsing enforcement level for "${name}": "${level}" is not a valid enforcement level`);
    enforcementLevel = level;
    delete props.enforcementLevel;
  }
  return { enforcementLevel, properties: Object.keys(props).length ? props : undefined };
}

/** Each policy's level and its schema's defaults (Pulumi's `createConfigWithDefaults`). */
function defaults(policies: readonly PolicyInfo[]): Record<string, GivenPolicyConfig> {
  const result: Record<string, GivenPolicyConfig> = {};
  for (const p of policies) {
    let properties: Record<string, unknown> | undefined;
    for (const [k, s] of Object.entries(p.configSchema?.properties ?? {})) {
      if ('default' in s) (properties ??= {})[k] = s.default;
    }
    result[p.name] = { enforcementLevel: p.enforcementLevel, properties };
  }
  return result;
}

/** Pulumi's `applyConfig`: `all` first, then each policy's level and properties over what is there. */
function apply(result: Record<string, GivenPolicyConfig>, given: Record<string, GivenPolicyConfig>): void {
  const all = given.all?.enforcementLevel;
  if (all) for (const k of Object.keys(result)) result[k] = { ...result[k], enforcementLevel: all };
  for (const [name, c] of Object.entries(given)) {
    const cur = result[name] ?? {};
    const properties = c.properties && Object.keys(c.properties).length ? { ...(cur.properties ?? {}), ...c.properties } : cur.properties;
    result[name] = { enforcementLevel: c.enforcementLevel ?? cur.enforcementLevel, properties };
  }
}

/**
 * The config to send with Configure, or the validation errors (`policy: error`, sorted) when it breaks a policy's
 * schema (Pulumi's `ReconcilePolicyPackConfig`).
 */
export function reconcilePolicyConfig(
  policies: readonly PolicyInfo[],
  initial: Record<string, PolicyConfigEntry>,
  fromFile: Record<string, GivenPolicyConfig>,
): { config: Record<string, PolicyConfigEntry>; errors: string[] } {
  const result = defaults(policies);
  apply(result, initial);
  apply(result, fromFile);
  const errors: string[] = [];
  for (const p of policies) {
    if (!p.configSchema) continue;
    const schema = { type: 'object', properties: p.configSchema.properties, ...(p.configSchema.required.length ? { required: p.configSchema.required } : {}) };
    for (const e of validateSchema(schema, result[p.name]?.properties ?? {})) errors.push(`${p.name}: ${e}`);
  }
  const config: Record<string, PolicyConfigEntry> = {};
  for (const [name, c] of Object.entries(result)) {
    // Pulumi's Configure refuses a level that is not valid: a name with properties only (not a policy) has none
    if (!c.enforcementLevel) throw new Error(`invalid enforcement level "" for "${name}"`);
    config[name] = { enforcementLevel: c.enforcementLevel, properties: c.properties ?? {} };
  }
  return { config, errors };
}
