/**
 * The keys of `Pulumi.yaml` and `Pulumi.<stack>.yaml` stackyard implements, checked when a file is read. Pulumi's
 * schema (sdk/go/common/workspace/project.go, project.json) has more; a key stackyard does not implement is refused
 * with its name and the way out, never ignored: a program run without what such a key asks for (another backend)
 * would be a silent deviation. Pulumi itself accepts keys outside its schema; stackyard refuses those too, so a misspelt key is caught rather than ignored (docs/cli.md).
 */
import { UserError } from '../output/errors.js';

/** Top-level keys of `Pulumi.yaml` that stackyard reads (the metadata keys and `template` change nothing in a run, as in Pulumi). */
export const PROJECT_KEYS: ReadonlySet<string> = new Set([
  'name',
  'runtime',
  'main',
  'description',
  'author',
  'website',
  'license',
  'config',
  'stackConfigDir',
  'options',
  'plugins',
  'template',
]);

/**
 * Top-level keys a `runtime: yaml` project keeps its program in. The YAML language plugin reads them from Pulumi.yaml
 * itself (Pulumi YAML's reference: `resources`, `variables`, `outputs`, `pulumi`, `components`, and the older
 * `configuration`), so for such a project they are the program, not keys stackyard skips.
 */
const YAML_PROGRAM_KEYS: ReadonlySet<string> = new Set([
  ...PROJECT_KEYS,
  'resources',
  'variables',
  'outputs',
  'pulumi',
  'components',
  'configuration',
]);

/** Keys of `options:` in `Pulumi.yaml` that stackyard reads (Pulumi's schema allows no other). */
const PROJECT_OPTION_KEYS: ReadonlySet<string> = new Set(['refresh']);

/** Keys of `Pulumi.<stack>.yaml` that stackyard reads. */
export const STACK_FILE_KEYS: ReadonlySet<string> = new Set(['config', 'environment', 'secretsprovider', 'encryptedkey', 'encryptionsalt']);

/** Keys of Pulumi's schemas that stackyard does not implement: why it matters, and what to do instead. */
const NOT_IMPLEMENTED: Record<string, { what: string; next: string }> = {
  backend: {
    what: 'choosing the backend from the project file is not supported by stackyard; commands would use the backend you are logged in to',
    next: 'Remove `backend:` from Pulumi.yaml and log in to that backend with `stackyard login <url>`.',
  },
  packages: {
    what: 'packages (SDKs generated for parameterized or local providers) are not supported by stackyard',
    next: 'Remove `packages:` from Pulumi.yaml; keep a generated SDK in your program\'s dependencies instead.',
  },
  requiredPulumiVersion: {
    what: 'a required Pulumi CLI version does not apply to stackyard, which is not the Pulumi CLI',
    next: 'Remove `requiredPulumiVersion:` from Pulumi.yaml.',
  },
};

/** Refuses the first key of `doc` (the file's `section:`, when given) outside `known`, naming it. */
function checkKeys(file: string, doc: Record<string, unknown>, known: ReadonlySet<string>, section?: string): void {
  for (const key of Object.keys(doc)) {
    if (known.has(key)) continue;
    const name = section ? `${section}.${key}` : key;
    const missing = NOT_IMPLEMENTED[name];
    if (missing) throw new UserError(`${file}: \`${name}\`: ${missing.what}`, missing.next);
    throw new UserError(
      `${file}: \`${name}\` is not a key stackyard implements (it reads ${[...known].map((k) => `\`${k}\``).join(', ')})`,
      `Remove or rename \`${name}\`: stackyard refuses keys it does not implement rather than ignore them.`,
    );
  }
}

/** The runtime's name, written as `runtime: yaml` or `runtime: { name: yaml }`. */
function runtimeName(runtime: unknown): unknown {
  return runtime !== null && typeof runtime === 'object' ? (runtime as { name?: unknown }).name : runtime;
}

/** Refuses a key of a parsed `Pulumi.yaml` that stackyard does not implement. */
export function checkProjectKeys(file: string, doc: Record<string, unknown>): void {
  checkKeys(file, doc, runtimeName(doc.runtime) === 'yaml' ? YAML_PROGRAM_KEYS : PROJECT_KEYS);
  const options = doc.options;
  if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
    checkKeys(file, options as Record<string, unknown>, PROJECT_OPTION_KEYS, 'options');
  }
}

/** Refuses a key of a parsed `Pulumi.<stack>.yaml` that stackyard does not implement. */
export function checkStackFileKeys(file: string, doc: Record<string, unknown>): void {
  checkKeys(file, doc, STACK_FILE_KEYS);
}
