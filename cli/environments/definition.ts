/**
 * Editing and showing definitions as ESC's CLI does with yaml.v3 nodes (`env get`, `env set`, `env rm`): comments
 * and layout are kept, a definition is re-rendered with two-space indentation, and `set`/`rm` work on a property
 * path under `values` (or under `imports`).
 */
import { Document, isCollection, isMap, isScalar, parseDocument, Scalar, YAMLMap, type Node } from 'yaml';
import { UserError } from '../output/errors.js';

type Path = (string | number)[];

/** yaml.v3's layout: two-space indentation, no folding of long lines, flow collections as `{a: b}`. */
const RENDER = { indent: 2, lineWidth: 0, flowCollectionPadding: false } as const;

/** The definition as ESC prints it (`env get`): re-rendered, or as it is when it holds no document. */
export function renderDefinition(yaml: string): string {
  const doc = parseDocument(yaml);
  if (doc.contents === null) return yaml;
  return doc.toString(RENDER);
}

/** A node rendered on its own, as yaml.v3 marshals one. */
function renderNode(node: unknown): string {
  const doc = new Document();
  doc.contents = node as Node;
  return doc.toString(RENDER);
}

/** The node of the definition at `path` (from the document root), rendered, or undefined. */
export function definitionNodeAt(yaml: string, path: Path): string | undefined {
  const doc = parseDocument(yaml);
  if (doc.contents === null) return undefined;
  const node = doc.getIn(path, true);
  return node === undefined ? undefined : renderNode(node);
}

/**
 * The node `env set` writes: the value read as YAML (`--string`: as a string), wrapped in `fn::secret` with
 * `--secret` (a non-string scalar becomes its text, as ESC quotes it).
 */
export function valueNode(input: string, options: { raw: boolean; secret: boolean }): Node {
  let node: Node;
  if (options.raw) node = new Scalar(input);
  else {
    const parsed = parseDocument(input);
    if (parsed.errors.length > 0) throw new UserError(`invalid value: ${parsed.errors[0]!.message}`);
    node = (parsed.contents as Node | null) ?? new Scalar('');
  }
  if (options.secret) {
    if (isScalar(node) && typeof node.value !== 'string') node = new Scalar(input);
    const secret = new YAMLMap();
    secret.set('fn::secret', node);
    return secret;
  }
  return node;
}

/** The definition with `node` at `path` (under `values`, or at the root for `imports…`). */
export function setDefinitionValue(yaml: string, path: Path, node: Node): string {
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0) throw new UserError(`unmarshaling environment definition: ${doc.errors[0]!.message}`);
  // A node of the document's own schema: a bare `new YAMLMap()` cannot take a path (a new environment is empty).
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as never;
  const at = path[0] === 'imports' ? path : ['values', ...path];
  const parent = doc.getIn(at.slice(0, -1), true);
  if (parent !== undefined && !isCollection(parent)) {
    throw new UserError(`cannot set ${String(at[at.length - 1])}: ${at.slice(0, -1).join('.')} is not an object or a list`);
  }
  doc.setIn(at, node);
  return doc.toString(RENDER);
}

/** The definition without the value at `path` under `values`; undefined when there is nothing to remove. */
export function removeDefinitionValue(yaml: string, path: Path): string | undefined {
  const doc = parseDocument(yaml);
  if (doc.contents === null || !doc.hasIn(['values'])) return undefined;
  doc.deleteIn(['values', ...path]);
  return doc.toString(RENDER);
}

/** `passwd`, `password`, `secret`, `token`…: the keys whose values `env set` checks before storing in plaintext. */
const SECRET_KEY = /passwd|pass|password|pwd|secret|token/i;

/**
 * Whether a plaintext value looks like a secret (ESC's looksLikeSecret): a string under a secret-sounding key whose
 * first 16 characters are strong. ESC measures strength with zxcvbn; this estimates it from the character classes
 * used (bits = length × log2 of the alphabet), with ESC's thresholds: 80 bits, or 40 bits at 3 bits a character.
 */
export function looksLikeSecret(path: Path, node: Node): boolean {
  const key = path[path.length - 1];
  if (!isScalar(node) || typeof node.value !== 'string' || typeof key !== 'string' || !SECRET_KEY.test(key)) return false;
  const value = node.value.slice(0, 16);
  if (value.length === 0) return false;
  let alphabet = 0;
  if (/[a-z]/.test(value)) alphabet += 26;
  if (/[A-Z]/.test(value)) alphabet += 26;
  if (/[0-9]/.test(value)) alphabet += 10;
  if (/[^A-Za-z0-9]/.test(value)) alphabet += 33;
  const distinct = new Set(value).size;
  const entropy = distinct * Math.log2(alphabet) + (value.length - distinct);
  return entropy >= 80 || (entropy >= 40 && entropy / value.length >= 3);
}
