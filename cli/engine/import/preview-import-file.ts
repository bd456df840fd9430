/**
 * The import file `preview --import-file` writes (Pulumi's `buildImportFile` in preview.go): every resource the
 * preview would create becomes an entry to fill in — custom resources with the id `<PLACEHOLDER>`, explicit
 * providers with their configuration (values unknown in the preview left out, with a warning), components marked
 * as such — named by their URN's name (made unique with their type's name, then a number), with parents and
 * providers the preview does not create in the name table. The stack and default providers are left out.
 */
import type { DiagEvent, EngineEvents, StepEvent } from '../display/events.js';
import type { SecretsCrypter } from '../state/deployment.js';
import { pluginDownloadUrlOf } from '../plugins/providers/provider-internals.js';
import { containsUnknowns, type PropertyMap } from '../resource/properties.js';
import { isProviderType, parseProviderRef, urnName, urnType, STACK_TYPE } from '../resource/urn.js';
import { encodeFileProperties } from './file-properties.js';
import { writeImportFile, type ImportFile, type ImportSpec } from './import-file.js';
import { typeSuffix } from './import-plan.js';

/** The placeholder Pulumi writes for the ids to fill in. */
export const ID_PLACEHOLDER = '<PLACEHOLDER>';

/** An import file being built from a preview's steps; `file` encodes provider configurations at the end. */
export interface ImportFileCollector {
  events: EngineEvents;
  file(encode: (values: PropertyMap) => Promise<Record<string, unknown>>): Promise<ImportFile>;
}

/** A default provider's URN (`default`, `default_1_2_3`, …), as Pulumi's `IsDefaultProvider` tells it. */
function isDefaultProvider(urn: string): boolean {
  return isProviderType(urnType(urn)) && /^default(_|$)/.test(urnName(urn));
}

/** Collects the creates of a preview into an import file; `warn` reports provider settings left out. */
export function collectImportFile(warn: (d: DiagEvent) => void): ImportFileCollector {
  const fullNames = new Map<string, string>();
  const importSet = new Set<string>();
  const providerInputs = new Map<string, PropertyMap>();
  const taken = new Map<string, { name: string; type: string }>();
  const nameTable: Record<string, string> = {};
  const resources: ImportSpec[] = [];
  const providerConfigs = new Map<ImportSpec, PropertyMap>();

  const uniqueName = (name: string, type: string) => {
    const base = `${name}${typeSuffix(type)}`;
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}${n}`;
    return candidate;
  };

  /** Another resource took this name: rename it (if it was renamed already) or find this one a new name. */
  const claimName = (urn: string): string => {
    const name = urnName(urn);
    const old = taken.get(name);
    if (!old) return name;
    if (old.name === name) return uniqueName(name, urnType(urn));
    const renamed = uniqueName(old.name, old.type);
    if (name in nameTable) {
      nameTable[renamed] = nameTable[name]!;
      delete nameTable[name];
    }
    for (const spec of resources) {
      if (spec.name === name) spec.name = renamed;
      if (spec.parent === name) spec.parent = renamed;
      if (spec.provider === name) spec.provider = renamed;
    }
    for (const [u, n] of fullNames) if (n === name) fullNames.set(u, renamed);
    taken.set(renamed, old);
    taken.delete(name);
    return name;
  };

  const step = (e: StepEvent) => {
    if (e.phase !== 'start' || !e.new) return;
    const { urn } = e;
    const name = claimName(urn);
    fullNames.set(urn, name);
    taken.set(name, { name: urnName(urn), type: urnType(urn) });
    if (isProviderType(e.type)) providerInputs.set(urn, e.new.inputs ?? {});
    if (e.op !== 'create' || e.type === STACK_TYPE) return;
    importSet.add(urn);
    if (isDefaultProvider(urn)) return;
    const spec: ImportSpec = { type: e.type, name };
    const state = e.new;
    if (state.parent && urnType(state.parent) !== STACK_TYPE) {
      spec.parent = fullNames.get(state.parent);
      if (spec.parent && !importSet.has(state.parent)) nameTable[spec.parent] = state.parent;
    }
    if (state.provider) {
      const providerUrn = parseProviderRef(state.provider).urn;
      if (!isDefaultProvider(providerUrn)) {
        spec.provider = fullNames.get(providerUrn);
        if (spec.provider && !importSet.has(providerUrn)) nameTable[spec.provider] = providerUrn;
      }
      const inputs = providerInputs.get(providerUrn);
      spec.version = typeof inputs?.version === 'string' && inputs.version !== '' ? inputs.version : undefined;
      spec.pluginDownloadUrl = pluginDownloadUrlOf(inputs ?? {});
    }
    if (state.custom && isProviderType(e.type)) providerConfigs.set(spec, knownInputs(urn, state.inputs ?? {}, warn));
    else if (state.custom) spec.id = ID_PLACEHOLDER;
    if (name !== urnName(urn)) spec.logicalName = urnName(urn);
    spec.component = !state.custom || undefined;
    spec.remote = (!state.custom && !!state.provider) || undefined;
    resources.push(spec);
  };

  return {
    events: { step },
    async file(encode) {
      for (const [spec, inputs] of providerConfigs) if (Object.keys(inputs).length) spec.inputs = await encode(inputs);
      return { nameTable, resources };
    },
  };
}

/** A provider's configuration without the values the preview does not know (each named in one warning). */
function knownInputs(urn: string, inputs: PropertyMap, warn: (d: DiagEvent) => void): PropertyMap {
  const known: PropertyMap = {};
  const unknown: string[] = [];
  for (const key of Object.keys(inputs).sort()) {
    if (containsUnknowns(inputs[key]!)) unknown.push(key);
    else known[key] = inputs[key]!;
  }
  if (unknown.length) {
    warn({ severity: 'warning', urn, message: `configuration of provider ${urn} is not known during the preview and has been omitted from the import file, fill it in before importing: ${unknown.join(', ')}` });
  }
  return known;
}

/** `preview --import-file <path>`: the preview's events to observe, and `write` once it succeeded (secrets encrypted). */
export function previewImportFile(path: string): { collector: ImportFileCollector; write(crypter: SecretsCrypter): Promise<void> } {
  const collector = collectImportFile((d) => void process.stderr.write(`warning: ${d.message}\n`));
  return {
    collector,
    write: async (crypter) => writeImportFile(path, await collector.file((values) => encodeFileProperties(values, crypter))),
  };
}
