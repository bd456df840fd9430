/**
 * The `config:` section of `Pulumi.yaml` as Pulumi reads it (sdk/go/common/workspace/project.go): each key a type
 * declaration (`type`, `items`, `default`, `value`, `secret`, `description`) or a shorthand value, checked when the
 * project is read; and the stack's configuration validated against it before a program runs
 * (pkg/workspace/config.go), with Pulumi's messages.
 */
import { UserError } from '../output/errors.js';

/** An element type of an `array` config type. */
export interface ConfigItemsType {
  type: string;
  items?: ConfigItemsType;
}

/** One declared key of the project's `config:`. */
export interface ProjectConfigType {
  /** The key as the project file writes it (`name` or `namespace:name`). */
  name: string;
  /** `namespace:name`, the project's own namespace when the file writes none. */
  key: string;
  type?: string;
  items?: ConfigItemsType;
  default?: unknown;
  value?: unknown;
  secret: boolean;
}

const SIMPLE_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean', 'array', 'object']);
const DECLARATION_KEYS: ReadonlySet<string> = new Set(['type', 'items', 'description', 'secret', 'default', 'value']);

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A key written `name` or `<project>:name` belongs to the project. */
function namespacedByProject(projectName: string, name: string): boolean {
  return !name.includes(':') || name.startsWith(`${projectName}:`);
}

function parseItems(file: string, name: string, raw: unknown): ConfigItemsType {
  if (!isMapping(raw) || typeof raw.type !== 'string' || !SIMPLE_TYPES.has(raw.type)) {
    throw new UserError(
      `${file}: config '${name}': 'items' must be a mapping whose 'type' is one of ${[...SIMPLE_TYPES].join(', ')}`,
      'Write `items: {type: string}` (or another element type).',
    );
  }
  if (raw.type === 'array' && raw.items === undefined) {
    throw new UserError(`${file}: config '${name}': an 'items' of type 'array' needs its own 'items'`, 'Add the element type of the inner array.');
  }
  return { type: raw.type, ...(raw.items !== undefined ? { items: parseItems(file, name, raw.items) } : {}) };
}

/** One entry of `config:`: a shorthand value (a default for the project's keys, a value for others) or a declaration. */
function parseEntry(file: string, projectName: string, name: string, raw: unknown): ProjectConfigType {
  const key = name.includes(':') ? name : `${projectName}:${name}`;
  if (!isMapping(raw)) {
    return namespacedByProject(projectName, name) ? { name, key, default: raw, secret: false } : { name, key, value: raw, secret: false };
  }
  for (const field of Object.keys(raw)) {
    if (!DECLARATION_KEYS.has(field)) {
      throw new UserError(
        `${file}: config '${name}': '${field}' is not a field of a config declaration (${[...DECLARATION_KEYS].join(', ')})`,
        'A structured value goes under `value:` (or `default:` for a key of this project).',
      );
    }
  }
  if (raw.type !== undefined && (typeof raw.type !== 'string' || !SIMPLE_TYPES.has(raw.type))) {
    throw new UserError(`${file}: config '${name}': 'type' must be one of ${[...SIMPLE_TYPES].join(', ')}`);
  }
  if (raw.secret !== undefined && typeof raw.secret !== 'boolean') {
    throw new UserError(`${file}: config '${name}': 'secret' must be true or false`);
  }
  return {
    name,
    key,
    ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
    ...(raw.items !== undefined ? { items: parseItems(file, name, raw.items) } : {}),
    ...(raw.default !== undefined && raw.default !== null ? { default: raw.default } : {}),
    ...(raw.value !== undefined && raw.value !== null ? { value: raw.value } : {}),
    secret: raw.secret === true,
  };
}

/** Pulumi's full type name: `array<array<string>>` for nested arrays. */
export function fullTypeName(type: string, items?: ConfigItemsType): string {
  return items ? `array<${fullTypeName(items.type, items.items)}>` : type;
}

/** Pulumi's `ValidateConfigValue`: whether `value` (a string for a scalar, the parsed JSON for an object) fits. */
export function fitsConfigType(type: string, items: ConfigItemsType | undefined, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      if (typeof value === 'number') return Number.isInteger(value);
      return typeof value === 'string' && /^[+-]?\d+$/.test(value);
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false';
    case 'object':
      return isMapping(value);
    default:
      return Array.isArray(value) && items !== undefined && value.every((item) => fitsConfigType(items.type, items.items, item));
  }
}

/** Pulumi's `Project.Validate` for one key. */
function checkDeclaration(projectName: string, decl: ProjectConfigType): void {
  const { name } = decl;
  if (decl.default !== undefined && decl.value !== undefined) {
    throw new Error(`project config '${name}' cannot have both a 'default' and 'value' attribute`);
  }
  if (namespacedByProject(projectName, name)) {
    if (decl.type === 'array' && !decl.items) {
      throw new Error(`The configuration key '${name}' declares an array but does not specify the underlying type via the 'items' attribute`);
    }
    if (decl.type !== undefined && decl.default !== undefined && !fitsConfigType(decl.type, decl.items, decl.default)) {
      throw new Error(`The default value specified for configuration key '${name}' is not of the expected type '${fullTypeName(decl.type, decl.items)}'`);
    }
    return;
  }
  if (decl.type !== undefined) throw new Error(`Configuration key '${name}' is not namespaced by the project and should not define a type`);
  if (decl.default !== undefined) {
    throw new Error(
      `Configuration key '${name}' is not namespaced by the project and should not define a default value. ` +
        "Did you mean to use the 'value' attribute instead of 'default'?",
    );
  }
  if (decl.value === undefined) throw new Error(`Configuration key '${name}' is namespaced and must provide an attribute 'value'`);
}

/**
 * The declarations of a parsed `Pulumi.yaml`'s `config:`, sorted by key as written, checked as Pulumi checks a
 * project when it loads it. A string `config:` (Pulumi's deprecated config folder) declares nothing.
 */
export function parseProjectConfig(file: string, projectName: string, config: unknown): ProjectConfigType[] {
  if (config === undefined || config === null || typeof config === 'string') return [];
  if (!isMapping(config)) throw new UserError(`${file}: \`config\` must be a mapping of configuration keys`);
  const declarations = Object.keys(config)
    .sort()
    .map((name) => parseEntry(file, projectName, name, config[name]));
  for (const decl of declarations) {
    try {
      checkDeclaration(projectName, decl);
    } catch (error) {
      throw new UserError(`${file}: ${(error as Error).message}`, 'Fix the `config:` section of Pulumi.yaml.');
    }
  }
  return declarations;
}

/** `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`, as Pulumi lists missing keys. */
function listKeys(keys: string[]): string {
  const quoted = [...keys].sort().map((k) => `'${k}'`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

/** A stack's value for a key: its program text (`value`), the parsed JSON when `object`, and whether it is secret. */
export interface StackConfigValue {
  value: string;
  object?: boolean;
  secret: boolean;
}

/**
 * Pulumi's `ValidateStackConfigAndApplyProjectConfig` check, on the stack's config with the project's defaults
 * already applied (`config`, keyed `namespace:name`, decrypted): a key of this project with no value and no default
 * is missing; a typed key's value must fit its type and, when `secret`, be encrypted. Throws Pulumi's message.
 */
export function validateStackConfig(stackName: string, projectName: string, declarations: ProjectConfigType[], config: Record<string, StackConfigValue>): void {
  const missing = declarations
    .filter((d) => config[d.key] === undefined && d.default === undefined && d.value === undefined && d.key.startsWith(`${projectName}:`))
    .map((d) => d.name);
  if (missing.length > 0) {
    throw stackConfigError(`Stack '${stackName}' is missing configuration ${missing.length > 1 ? 'values' : 'value'} ${listKeys(missing)}`);
  }
  for (const decl of declarations) {
    if (decl.type === undefined) continue;
    const stackValue = config[decl.key] ?? { value: '', secret: false };
    if (decl.secret && !stackValue.secret) {
      throw stackConfigError(`Stack '${stackName}' with configuration key '${decl.name}' must be encrypted as it's secret`);
    }
    const content: unknown = stackValue.object ? JSON.parse(stackValue.value) : stackValue.value;
    if (!fitsConfigType(decl.type, decl.items, content)) {
      throw stackConfigError(`Stack '${stackName}' with configuration key '${decl.name}' must be of type '${fullTypeName(decl.type, decl.items)}'`);
    }
  }
}

function stackConfigError(message: string): UserError {
  return new UserError(
    `validating stack config: ${message}`,
    'Set the value with `stackyard config set` (`--secret` for a secret key) or `-c key=value`, or run with --skip-config-validation.',
  );
}
