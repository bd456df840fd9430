/**
 * The TypeScript `stackyard import` prints for the resources it imported. Pulumi turns the imported states into a
 * PCL program (`pkg/importer/hcl2.go`) and has the project's language plugin generate code from it; stackyard
 * writes TypeScript directly, with the same choices: each input property of the resource's schema that the state
 * holds (a required one missing or null gets its type's zero value; inputs the schema does not list are left out),
 * secrets through `pulumi.secret`, and the options `parent` and `provider` (by their name-table names, unless the
 * stack or a default provider) and `protect`. Run as the program, it registers what the state holds: no changes.
 */
import type { ResourceState } from '../state/deployment.js';
import { isSecret, type PropertyValue } from '../resource/properties.js';
import { isProviderType, packageOfType, parseProviderRef, urnName, urnType, STACK_TYPE } from '../resource/urn.js';
import type { NameTable } from './import-plan.js';
import type { PackageSchema, SchemaObjectType, SchemaResource, SchemaType } from './package-schema.js';

const INDENT = '    ';

/** A code generation failure (an unknown type, a name missing from the name table). */
export class CodegenError extends Error {
  override readonly name = 'CodegenError';
}

/** A JavaScript identifier for a name (Pulumi's `makeValidIdentifier`: other characters become `_`). */
export function identifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (/^[0-9]/.test(id)) id = `_${id}`;
  return RESERVED.has(id) ? `_${id}` : id;
}

const RESERVED = new Set(['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'let', 'static', 'yield', 'await', 'pulumi']);

/** The npm package of a schema (`language.nodejs.packageName`, else `@pulumi/<name>`). */
function npmPackage(schema: PackageSchema): string {
  return schema.language?.nodejs?.packageName ?? `@pulumi/${schema.name}`;
}

function camel(text: string): string {
  return text.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `aws.s3.Bucket` for `aws:s3/bucket:Bucket` (the module through the schema's `moduleFormat`), `aws.Provider` for a provider. */
function constructorOf(type: string, schema: PackageSchema): string {
  const pkg = identifier(schema.name);
  if (isProviderType(type)) return `${pkg}.Provider`;
  const [, mod = 'index', name = ''] = type.split(':');
  const format = schema.meta?.moduleFormat ? new RegExp(`^${schema.meta.moduleFormat}$`) : undefined;
  const module = format?.exec(mod)?.[1] ?? mod;
  const path = module === 'index' || module === '' ? [] : module.split('/').filter(Boolean).map((part) => identifier(camel(part)));
  return [pkg, ...path, name].join('.');
}

/** An object key as written in code: bare when it is an identifier. */
function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** The object type a `$ref` names in the schema (`#/types/<token>`). */
function refType(ref: string | undefined, schema: PackageSchema): SchemaObjectType | undefined {
  const token = ref?.startsWith('#/types/') ? decodeURIComponent(ref.slice('#/types/'.length)) : undefined;
  return token ? schema.types?.[token] : undefined;
}

/** The zero value of a type, for a required property the state does not hold (Pulumi's `zeroValue`). */
function zeroValue(t: SchemaType | undefined, schema: PackageSchema, depth: number): string {
  const object = refType(t?.$ref, schema);
  if (object?.enum) return JSON.stringify(object.enum[0] ?? null);
  if (object) return renderObject({}, object.properties ?? {}, object.required ?? [], schema, depth);
  if (t?.oneOf?.length) return zeroValue(t.oneOf[0], schema, depth);
  switch (t?.type) {
    case 'string':
      return '""';
    case 'number':
    case 'integer':
      return '0';
    case 'boolean':
      return 'false';
    case 'array':
      return '[]';
    default:
      return '{}';
  }
}

/** A value of a property, as code (`depth` is the indent of the line it starts on). */
function renderValue(v: PropertyValue, t: SchemaType | undefined, schema: PackageSchema, depth: number): string {
  if (isSecret(v)) return `pulumi.secret(${renderValue((v as { value: PropertyValue }).value, t, schema, depth)})`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const lines = v.map((e) => `${INDENT.repeat(depth + 1)}${renderValue(e, t?.items, schema, depth + 1)},`);
    return `[\n${lines.join('\n')}\n${INDENT.repeat(depth)}]`;
  }
  const object = refType(t?.$ref, schema);
  if (object?.properties) return renderObject(v as Record<string, PropertyValue>, object.properties, object.required ?? [], schema, depth);
  return renderMap(v as Record<string, PropertyValue>, t?.additionalProperties, schema, depth);
}

function renderMap(v: Record<string, PropertyValue>, element: SchemaType | undefined, schema: PackageSchema, depth: number): string {
  const names = Object.keys(v).sort();
  if (names.length === 0) return '{}';
  const lines = names.map((k) => `${INDENT.repeat(depth + 1)}${key(k)}: ${renderValue(v[k]!, element, schema, depth + 1)},`);
  return `{\n${lines.join('\n')}\n${INDENT.repeat(depth)}}`;
}

/** An object of a schema type: its properties in name order, required ones always (Pulumi's `generatePropertyValue`). */
function renderObject(v: Record<string, PropertyValue>, properties: Record<string, SchemaType>, required: readonly string[], schema: PackageSchema, depth: number): string {
  const lines: string[] = [];
  for (const name of Object.keys(properties).sort()) {
    const value = v[name];
    let text: string | undefined;
    if (value === undefined || value === null) text = required.includes(name) ? zeroValue(properties[name], schema, depth + 1) : undefined;
    else text = renderValue(value, properties[name], schema, depth + 1);
    if (text !== undefined) lines.push(`${INDENT.repeat(depth + 1)}${key(name)}: ${text},`);
  }
  return lines.length ? `{\n${lines.join('\n')}\n${INDENT.repeat(depth)}}` : '{}';
}

/** The resource's schema entry; a type the schema does not know fails, as Pulumi's code generation does. */
function resourceSchema(state: ResourceState, schema: PackageSchema): SchemaResource {
  const entry = isProviderType(state.type) ? (schema.provider ?? {}) : schema.resources?.[state.type];
  if (!entry) throw new CodegenError(`unknown resource type '${state.type}' (the schema of package '${schema.name}' does not list it)`);
  return entry;
}

/** The options block: parent and provider by name (not the stack, not a default provider), protect. */
function optionsOf(state: ResourceState, names: NameTable): string[] {
  const options: string[] = [];
  if (state.parent && urnType(state.parent) !== STACK_TYPE) {
    const name = names.get(state.parent);
    if (!name) throw new CodegenError(`no name for parent ${state.parent}`);
    options.push(`parent: ${identifier(name)}`);
  }
  if (state.provider && !isProviderType(state.type)) {
    const { urn } = parseProviderRef(state.provider);
    if (!urnName(urn).startsWith('default')) {
      const name = names.get(urn);
      if (!name) throw new CodegenError(`no name for provider ${state.provider}`);
      options.push(`provider: ${identifier(name)}`);
    }
  }
  if (state.protect) options.push('protect: true');
  return options;
}

/** One `const x = new …;` statement. */
function statement(state: ResourceState, names: NameTable, schemas: ReadonlyMap<string, PackageSchema>): string {
  const variable = identifier(names.get(state.urn) ?? urnName(state.urn));
  const options = optionsOf(state, names);
  const optionsText = options.length ? `, {\n${options.map((o) => `${INDENT}${o},`).join('\n')}\n}` : '';
  if (!state.custom && !state.provider) {
    return `const ${variable} = new pulumi.ComponentResource(${JSON.stringify(state.type)}, ${JSON.stringify(urnName(state.urn))}, {}${optionsText});`;
  }
  const schema = schemas.get(packageOfType(state.type));
  if (!schema) throw new CodegenError(`no schema for package '${packageOfType(state.type)}'`);
  const entry = resourceSchema(state, schema);
  const args = renderObject((state.inputs ?? {}) as Record<string, PropertyValue>, entry.inputProperties ?? {}, entry.requiredInputs ?? [], schema, 0);
  return `const ${variable} = new ${constructorOf(state.type, schema)}(${JSON.stringify(urnName(state.urn))}, ${args}${optionsText});`;
}

/** The program declaring `states` (in import order); `schemas` by package name. */
export function generateTypeScript(states: readonly ResourceState[], names: NameTable, schemas: ReadonlyMap<string, PackageSchema>): string {
  const statements = states.map((s) => statement(s, names, schemas));
  const packages = [...new Set(states.filter((s) => s.custom || s.provider).map((s) => packageOfType(s.type)))].sort();
  const imports = ['import * as pulumi from "@pulumi/pulumi";', ...packages.map((p) => `import * as ${identifier(schemas.get(p)!.name)} from ${JSON.stringify(npmPackage(schemas.get(p)!))};`)];
  return `${imports.join('\n')}\n\n${statements.join('\n')}\n`;
}
