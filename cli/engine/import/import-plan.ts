/**
 * An import file checked and turned into the imports the engine runs (Pulumi's `parseImportFile`): names and
 * logical names default to each other, every resource needs a type, a name and (unless a component or a provider)
 * an id, parents and providers are resolved through the name table or the file's own resources (in any order), and
 * each imported URN gets the name its code will use (the name table). Every problem is collected and reported at
 * once, in Go's multierror form, before anything runs.
 */
import type { PlannedImport } from '../steps/planned-imports.js';
import type { PropertyMap } from '../resource/properties.js';
import { createUrn, isProviderType, urnType } from '../resource/urn.js';
import { ImportFileError, type ImportFile, type ImportSpec } from './import-file.js';

/** URN → the variable name of its resource in the generated code (Pulumi's `importer.NameTable`). */
export type NameTable = Map<string, string>;

/** Turns a serialized property map of the file (secrets possibly encrypted) into engine values. */
export type DecodeProperties = (serialized: Record<string, unknown>) => Promise<PropertyMap>;

/** What the engine imports, and the names the generated code gives each URN. */
export interface ImportPlan {
  imports: PlannedImport[];
  names: NameTable;
}

/** Go's `multierror` text: `1 error occurred:\n\t* …\n\n`. */
function multiError(errors: string[]): ImportFileError {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return new ImportFileError(`${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`);
}

/** `resource 'foo' of type 'aws:ec2/vpc:Vpc'`, `resource 3`, … (Pulumi's `describeResource`). */
function describe(i: number, spec: ImportSpec): string {
  const who = spec.name ? `'${spec.name}'` : spec.id ? `'${spec.id}'` : String(i);
  return `resource ${who}${spec.type ? ` of type '${spec.type}'` : ''}`;
}

/** The `Thing` of `pkg:mod:Thing`, first letter upper-cased (the suffix of a name made unique). */
export function typeSuffix(type: string): string {
  const name = type.slice(type.lastIndexOf(':') + 1);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Checks the basic shape of each resource: type, name, id as its kind needs, fields stackyard does not take. */
function shapeErrors(specs: ImportSpec[]): string[] {
  const errs: string[] = [];
  specs.forEach((spec, i) => {
    if (!spec.type) errs.push(`${describe(i, spec)} has no type`);
    if (!spec.name) errs.push(`${describe(i, spec)} has no name`);
    if (isProviderType(spec.type ?? '')) {
      if (spec.id) errs.push(`${describe(i, spec)} has an ID, but is a provider, which is created rather than read`);
      if (spec.component) errs.push(`${describe(i, spec)} is a provider and may not be marked as a component`);
      if (spec.outputs && Object.keys(spec.outputs).length) errs.push(`${describe(i, spec)} is a provider and may not have outputs`);
    } else if (!spec.component && !spec.id) {
      errs.push(`${describe(i, spec)} has no ID`);
    } else if (spec.component && spec.id) {
      errs.push(`${describe(i, spec)} has an ID, but is marked as a component`);
    }
    if (spec.remote && !spec.component) errs.push(`${describe(i, spec)} is marked as remote, but not as a component`);
    for (const field of ['outputs', 'parameterization', 'extension'] as const) {
      if (spec[field] !== undefined && !(field === 'outputs' && isProviderType(spec.type ?? ''))) {
        errs.push(`${describe(i, spec)} has '${field}', which stackyard does not import yet (see docs/cli.md); leave it out`);
      }
    }
  });
  return errs;
}

/** Resolves each resource's URN (parents first, in any order of the file) and the name its code will use. */
function resolveUrns(file: ImportFile, specs: ImportSpec[], stack: string, project: string, ambiguous: Map<string, boolean>, errs: string[]): { urnOf: Map<string, string>; names: NameTable } {
  const urnOf = new Map<string, string>();
  const names: NameTable = new Map();
  const takenUrns = new Set<string>();
  for (const [name, urn] of Object.entries(file.nameTable ?? {})) {
    names.set(urn, name);
    urnOf.set(name, urn);
    takenUrns.add(urn);
  }
  for (const spec of specs) urnOf.set(spec.name, '');
  const done = specs.map(() => false);
  const uniqueName = (name: string, type: string) => {
    const base = `${name}${typeSuffix(type)}`;
    let candidate = base;
    for (let n = 2; ambiguous.has(candidate); n++) candidate = `${base}${n}`;
    ambiguous.set(candidate, true);
    return candidate;
  };
  while (errs.length === 0 && done.some((d) => !d)) {
    let progressed = false;
    specs.forEach((spec, i) => {
      if (done[i]) return;
      let parentUrn: string | undefined;
      if (spec.parent) {
        if (ambiguous.get(spec.parent)) errs.push(`${describe(i, spec)} has an ambiguous parent`);
        const known = file.nameTable?.[spec.parent] ?? urnOf.get(spec.parent);
        if (known === undefined) {
          errs.push(`the parent '${spec.parent}' for ${describe(i, spec)} has no entry in 'nameTable'`);
        } else if (known === '') {
          return; // its parent's URN is not known yet: the next pass
        }
        parentUrn = known || undefined;
      }
      const urn = createUrn(stack, project, parentUrn, spec.type, spec.logicalName!);
      if (takenUrns.has(urn)) errs.push(`${describe(i, spec)} has an ambiguous URN, set name (or logical name) to be unique`);
      urnOf.set(spec.name, urn);
      takenUrns.add(urn);
      names.set(urn, [...names.values()].includes(spec.name) ? uniqueName(spec.name, spec.type) : spec.name);
      done[i] = progressed = true;
    });
    if (!progressed && errs.length === 0) {
      const stuck = specs.filter((_, i) => !done[i]).map((s) => `'${s.name}'`);
      errs.push(`the parents of resources ${stuck.join(', ')} name each other in a circle`);
    }
  }
  return { urnOf, names };
}

/** Checks an import file and plans its imports (Pulumi's `parseImportFile`); throws every problem at once. */
export async function planImports(file: ImportFile, stack: string, project: string, protect: boolean, decode: DecodeProperties): Promise<ImportPlan> {
  if (file.providerInputs && Object.keys(file.providerInputs).length) {
    throw new ImportFileError("the 'providerInputs' field is not supported by stackyard (Pulumi deprecated it): declare the provider in 'resources' and set its configuration via its 'inputs' instead");
  }
  const specs = (file.resources ?? []).map((s) => ({ ...s, name: s.name || s.logicalName || '', logicalName: s.logicalName || s.name }));
  const errs = shapeErrors(specs);
  // a name used twice is ambiguous: an error only where something refers to it
  const ambiguous = new Map<string, boolean>();
  specs.forEach((spec, i) => ambiguous.set(spec.name, ambiguous.has(spec.name) || specs.slice(0, i).some((o) => o.name === spec.name)));
  if (errs.length) throw multiError(errs);
  const { urnOf, names } = resolveUrns(file, specs, stack, project, ambiguous, errs);
  if (errs.length) throw multiError(errs);

  const imports: PlannedImport[] = [];
  for (const [i, spec] of specs.entries()) {
    const imp: PlannedImport = { type: spec.type, name: spec.logicalName!, id: spec.id || undefined, protect, properties: spec.properties?.length ? spec.properties : undefined, component: spec.component || undefined, remote: spec.remote || undefined };
    if (spec.parent) imp.parent = urnOf.get(spec.parent) || undefined;
    if (spec.provider) {
      if (ambiguous.get(spec.provider)) errs.push(`${describe(i, spec)} has an ambiguous provider`);
      const urn = urnOf.get(spec.provider);
      if (urn === undefined) errs.push(`the provider '${spec.provider}' for ${describe(i, spec)} has no entry in 'nameTable' or 'resources'`);
      else if (!/^urn:pulumi:/.test(urn) || !isProviderType(urnType(urn))) errs.push(`the provider '${spec.provider}' for ${describe(i, spec)} is not a provider`);
      else imp.provider = urn;
    }
    if (spec.version) {
      if (!/^v?\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(spec.version)) errs.push(`could not parse version '${spec.version}' for ${describe(i, spec)}: not a semantic version`);
      else imp.version = spec.version.replace(/^v/, '');
    }
    if (spec.pluginDownloadUrl) imp.pluginDownloadURL = spec.pluginDownloadUrl;
    if (spec.inputs) {
      try {
        imp.inputs = await decode(spec.inputs);
      } catch (err) {
        errs.push(`could not deserialize inputs for ${describe(i, spec)}: ${(err as Error).message}`);
      }
    }
    imports.push(imp);
  }
  if (errs.length) throw multiError(errs);
  return { imports, names };
}
