/**
 * Pulumi's import file (`pkg/cmd/pulumi/operations/import.go`: `importFile`, `importSpec`): what `import --file`
 * reads and `preview --import-file` writes, and the one-resource file `import <type> <name> <id>` stands for (with
 * `--parent name=urn` and `--provider name=urn`). Keys and their order are Pulumi's JSON tags; empty ones are left
 * out, as Go's `omitempty` does.
 */
import { readFile, writeFile } from 'node:fs/promises';

/** One resource of an import file (Pulumi's `importSpec`). */
export interface ImportSpec {
  type: string;
  name: string;
  id?: string;
  parent?: string;
  provider?: string;
  version?: string;
  pluginDownloadUrl?: string;
  properties?: string[];
  component?: boolean;
  remote?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  logicalName?: string;
  parameterization?: unknown;
  extension?: unknown;
}

/** An import file: resources, and the URNs of the resources they name as parent or provider but do not import. */
export interface ImportFile {
  nameTable?: Record<string, string>;
  resources?: ImportSpec[];
  /** Deprecated by Pulumi in favour of providers declared among `resources`. */
  providerInputs?: Record<string, Record<string, unknown>>;
}

/** A problem with the command line or the import file; nothing was imported. */
export class ImportFileError extends Error {
  override readonly name = 'ImportFileError';
}

/** The key order of Pulumi's `importSpec` JSON tags. */
const SPEC_KEYS: readonly (keyof ImportSpec)[] = [
  'type', 'name', 'id', 'parent', 'provider', 'version', 'pluginDownloadUrl', 'properties', 'component', 'remote',
  'inputs', 'outputs', 'logicalName', 'parameterization', 'extension',
];

/** Reads an import file (`--file`), as Go's JSON decoder reads it into `importFile`. */
export async function readImportFile(path: string): Promise<ImportFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ImportFileError(`could not read import file: open ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ImportFileError(`could not read import file: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ImportFileError('could not read import file: expected a JSON object with "resources"');
  const file = parsed as ImportFile;
  if (file.resources !== undefined && !Array.isArray(file.resources)) throw new ImportFileError('could not read import file: "resources" must be a list');
  return file;
}

/** The import file's JSON as Pulumi writes it (four-space indent, no HTML escaping, empty fields left out). */
export function formatImportFile(file: ImportFile): string {
  const out: Record<string, unknown> = {};
  if (file.nameTable && Object.keys(file.nameTable).length) out.nameTable = file.nameTable;
  if (file.resources?.length) out.resources = file.resources.map(orderedSpec);
  return `${JSON.stringify(out, null, 4)}\n`;
}

/** Writes an import file (`preview --import-file`). */
export async function writeImportFile(path: string, file: ImportFile): Promise<void> {
  await writeFile(path, formatImportFile(file));
}

function orderedSpec(spec: ImportSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SPEC_KEYS) {
    const v = spec[key];
    if (v === undefined || v === '' || v === false || (Array.isArray(v) && v.length === 0)) continue;
    out[key] = v;
  }
  return out;
}

/** Splits `name=urn` (Pulumi's `parseResourceSpec`). */
function parseResourceSpec(spec: string): { name: string; urn: string } | string {
  const i = spec.indexOf('=');
  if (i < 0 || i === 0 || i === spec.length - 1) return 'spec must be of the form name=URN';
  const name = spec.slice(0, i);
  const urn = spec.slice(i + 1);
  if (!isUrn(urn)) return `expected a URN but got '${urn}'`;
  return { name, urn };
}

/** A well-formed URN: `urn:pulumi:<stack>::<project>::<type>::<name>`. */
export function isUrn(text: string): boolean {
  return /^urn:pulumi:[^:]*::[^:]*::.+::.*$/s.test(text);
}

/** The one-resource import file of `import <type> <name> <id>` (Pulumi's `makeImportFile`). */
export function singleResourceFile(type: string, name: string, id: string, properties: string[], parentSpec?: string, providerSpec?: string): ImportFile {
  const nameTable: Record<string, string> = {};
  const spec: ImportSpec = { type, name, id, properties: properties.length ? properties : undefined };
  if (parentSpec) {
    const parsed = parseResourceSpec(parentSpec);
    const { name: parentName, urn } = typeof parsed === 'string' ? { name: 'parent', urn: parentSpec } : parsed;
    if (!isUrn(urn)) throw new ImportFileError(`invalid parent URN: '${urn}'`);
    nameTable[parentName] = urn;
    spec.parent = parentName;
  }
  if (providerSpec) {
    const parsed = parseResourceSpec(providerSpec);
    const { name: providerName, urn } = typeof parsed === 'string' ? { name: 'provider', urn: providerSpec } : parsed;
    if (providerName in nameTable) throw new ImportFileError(`provider and parent must have distinct names, both were '${providerName}'`);
    nameTable[providerName] = urn;
    spec.provider = providerName;
  }
  return { nameTable, resources: [spec] };
}
