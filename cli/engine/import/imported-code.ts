/**
 * The code for what an import adopted (Pulumi's `generateImportedDefinitions`): the imported resources are looked
 * up in the stack's state after the run (so a failed or preview-only import gives none), protected as the import
 * asked, and each package's schema is read from its provider plugin (the version its provider resource records).
 */
import { loadDeployment, type ResourceState, type SecretsCrypter, type UntypedDeployment } from '../state/deployment.js';
import { providerPluginOf } from '../plugins/providers/parameterized.js';
import { createUrn, packageOfType, parseProviderRef } from '../resource/urn.js';
import type { ImportPlan } from './import-plan.js';
import { loadPackageSchema, type PackageSchema, type SchemaSource } from './package-schema.js';
import { generateTypeScript } from './typescript-program.js';

/** What code generation needs of the stack. */
export interface CodeSource extends SchemaSource {
  stack: string;
  project: string;
  state: UntypedDeployment | undefined;
  crypter: SecretsCrypter;
  protect: boolean;
}

/** The imported resources as the state holds them now, in import order; empty when none was imported. */
async function importedStates(plan: ImportPlan, source: CodeSource): Promise<{ imported: ResourceState[]; all: ResourceState[] }> {
  const all = (await loadDeployment(source.state, source.crypter)).resources.filter((r) => !r.delete);
  const byUrn = new Map(all.map((r) => [r.urn, r]));
  const imported: ResourceState[] = [];
  for (const imp of plan.imports) {
    const state = byUrn.get(createUrn(source.stack, source.project, imp.parent, imp.type, imp.name));
    if (state) imported.push({ ...state, protect: source.protect || undefined });
  }
  return { imported, all };
}

/** Each package's schema, from the plugin version its provider resource records. */
async function schemasFor(imported: readonly ResourceState[], all: readonly ResourceState[], source: SchemaSource): Promise<Map<string, PackageSchema>> {
  const schemas = new Map<string, PackageSchema>();
  for (const r of imported) {
    const pkg = packageOfType(r.type);
    if (schemas.has(pkg) || (!r.custom && !r.provider)) continue;
    const providerUrn = r.provider ? parseProviderRef(r.provider).urn : r.urn;
    const provider = all.find((p) => p.urn === providerUrn);
    const plugin = provider ? providerPluginOf(provider.type, provider.inputs ?? {}) : { name: pkg };
    schemas.set(pkg, await loadPackageSchema(plugin.name, plugin.version, source, plugin.pluginDownloadURL));
  }
  return schemas;
}

/** The TypeScript declaring the imported resources, or undefined when the state holds none of them. */
export async function importedCode(plan: ImportPlan, source: CodeSource): Promise<string | undefined> {
  const { imported, all } = await importedStates(plan, source);
  if (imported.length === 0) return undefined;
  return generateTypeScript(imported, plan.names, await schemasFor(imported, all, source));
}
