/**
 * Values as they cross the engine on the way to and from component providers (Construct and Call): Pulumi keeps
 * output values there, upgrades secrets and unknowns to them, and reads dependencies out of them.
 */
import type { InputPropertyError } from '../plugins/providers/component-call-error.js';
import {
  OUTPUT_VALUE_SIG,
  parsePropertyPath,
  RESOURCE_REF_SIG,
  SECRET_SIG,
  SIG_KEY,
  UNKNOWN,
  type PropertyMap,
  type PropertyValue,
} from '../resource/properties.js';

type PropertyObject = { [key: string]: PropertyValue };

function isObject(v: PropertyValue | undefined): v is PropertyObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Secrets and unknowns as output values, at any depth (Go's `UpgradeToOutputValues`): a secret becomes a known
 * secret output, an unknown an output without a value.
 */
export function upgradeToOutputValues(v: PropertyValue): PropertyValue {
  if (v === UNKNOWN) return { [SIG_KEY]: OUTPUT_VALUE_SIG };
  if (Array.isArray(v)) return v.map(upgradeToOutputValues);
  if (!isObject(v)) return v;
  if (v[SIG_KEY] === SECRET_SIG) return { [SIG_KEY]: OUTPUT_VALUE_SIG, secret: true, value: upgradeToOutputValues(v.value ?? null) };
  if (v[SIG_KEY] === RESOURCE_REF_SIG) return v;
  const out: PropertyObject = {};
  for (const k in v) out[k] = upgradeToOutputValues(v[k]!);
  return out;
}

/** Every value of a map upgraded (see `upgradeToOutputValues`). */
export function upgradeMapToOutputValues(m: PropertyMap): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(m)) out[k] = upgradeToOutputValues(v);
  return out;
}

/** The dependencies output values carry, at any depth (Go's `addOutputDependencies`), added to `into`. */
export function addOutputDependencies(into: Set<string>, v: PropertyValue | undefined): Set<string> {
  if (Array.isArray(v)) {
    for (const x of v) addOutputDependencies(into, x);
  } else if (isObject(v)) {
    if (v[SIG_KEY] === OUTPUT_VALUE_SIG) {
      if ('value' in v) addOutputDependencies(into, v.value);
      if (Array.isArray(v.dependencies)) for (const d of v.dependencies) if (typeof d === 'string') into.add(d);
    } else if (v[SIG_KEY] === RESOURCE_REF_SIG) {
      addOutputDependencies(into, v.id);
    } else if (v[SIG_KEY] !== SECRET_SIG) {
      for (const k in v) addOutputDependencies(into, v[k]);
    }
  }
  return into;
}

/** Per-key dependencies extended with those of each value's output values (Go's `extendOutputDependencies`). */
export function extendOutputDependencies(deps: Record<string, string[]>, values: PropertyMap): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, urns] of Object.entries(deps)) out[k] = [...new Set(urns)];
  for (const [k, v] of Object.entries(values)) {
    const set = addOutputDependencies(new Set(out[k] ?? []), v);
    out[k] = [...set];
  }
  return out;
}

/** A map without the keys whose value is unknown (Go unmarshals component results without unknowns outside previews). */
export function withoutUnknownValues(m: PropertyMap): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(m)) {
    if (v === UNKNOWN || (isObject(v) && v[SIG_KEY] === OUTPUT_VALUE_SIG && !('value' in v))) continue;
    out[k] = v;
  }
  return out;
}

/**
 * A component's error as Pulumi's `errorToMessage` words it: the message, then one line per rejected input property,
 * with the property's value (as Go prints a property value) when the inputs hold it.
 */
export function componentErrorMessage(message: string, errors: readonly InputPropertyError[], inputs: PropertyMap): string {
  let out = message;
  for (const e of errors) {
    const value = valueAt(inputs, e.propertyPath);
    out += value === undefined
      ? `\n\t\t- property ${e.propertyPath} has a problem: ${e.reason}`
      : `\n\t\t- property ${e.propertyPath} with value '${goPropertyValue(value)}' has a problem: ${e.reason}`;
  }
  return out;
}

function valueAt(inputs: PropertyMap, path: string): PropertyValue | undefined {
  let cur: PropertyValue | undefined = inputs;
  for (const seg of parsePropertyPath(path)) {
    if (typeof seg === 'number' ? !Array.isArray(cur) : !isObject(cur)) return undefined;
    cur = (cur as Record<string | number, PropertyValue>)[seg];
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A property value printed as Go's `%v` prints a `resource.PropertyValue` (`{bar}`, `{42}`, `{map[a:{1}]}`). */
export function goPropertyValue(v: PropertyValue): string {
  return `{${goInner(v)}}`;
}

function goInner(v: PropertyValue): string {
  if (v === null) return '<nil>';
  if (v === UNKNOWN) return '{{<nil>}}';
  if (Array.isArray(v)) return `[${v.map(goPropertyValue).join(' ')}]`;
  if (isObject(v)) {
    if (v[SIG_KEY] === SECRET_SIG) return `&{${goPropertyValue(v.value ?? null)}}`;
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goPropertyValue(v[k]!)}`).join(' ')}]`;
  }
  return String(v);
}
