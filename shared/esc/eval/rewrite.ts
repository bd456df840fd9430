import { Document, isMap, isScalar, isSeq, parseDocument, Scalar, YAMLMap, type Node as YamlNode, type Pair } from 'yaml';
import { decodeCiphertext, encodeCiphertext } from './crypt.js';
import { parsePath } from '../ast/path.js';
import { goMarshalJSON, toJSON, type EscValue } from '../value.js';
import type { Decrypt, RotationPatch } from './types.js';

/** Encrypts a secret's plaintext (the envelope is added around the result). */
export type Encrypt = (plaintext: Uint8Array) => Promise<Uint8Array>;

/** A `fn::secret` call in a definition: the pair holding it, and its plaintext or ciphertext scalar. */
interface SecretSite {
  pair: Pair;
  plaintext?: Scalar;
  ciphertext?: Scalar;
}

const stringScalar = (node: unknown): node is Scalar<string> => isScalar(node) && typeof node.value === 'string';

function secretSites(node: unknown, sites: SecretSite[]): SecretSite[] {
  if (isSeq(node)) for (const item of node.items) secretSites(item, sites);
  if (!isMap(node)) return sites;
  const [only] = node.items;
  if (node.items.length === 1 && isScalar(only.key) && only.key.value === 'fn::secret') {
    const arg = only.value;
    if (isMap(arg) && arg.items.length === 1 && isScalar(arg.items[0].key) && arg.items[0].key.value === 'ciphertext' && stringScalar(arg.items[0].value)) {
      sites.push({ pair: only, ciphertext: arg.items[0].value });
      return sites;
    }
    if (stringScalar(arg)) {
      sites.push({ pair: only, plaintext: arg });
      return sites;
    }
  }
  for (const pair of node.items) secretSites(pair.value, sites);
  return sites;
}

function render(doc: Document): string {
  return doc.toString({ indent: 2, lineWidth: 0, flowCollectionPadding: false });
}

function parseStrict(yamlText: string): Document {
  const doc = parseDocument(yamlText, { uniqueKeys: false });
  if (doc.errors.length > 0) throw new Error(`yaml: ${doc.errors[0].message.split('\n')[0]}`);
  return doc;
}

/**
 * Replaces every `fn::secret: <plaintext>` of a definition by `fn::secret: {ciphertext: …}` (ESC's envelope,
 * base64), keeping comments; what a service stores. Malformed secrets are left for the checker to report.
 */
export async function encryptSecrets(yamlText: string, encrypt: Encrypt): Promise<string> {
  const doc = parseStrict(yamlText);
  for (const site of secretSites(doc.contents, [])) {
    // A secret already sealed (a definition read back and saved again) stays as it is.
    const plaintext = site.plaintext;
    if (!plaintext) continue;
    const ciphertext = new Scalar(encodeCiphertext(await encrypt(new TextEncoder().encode(plaintext.value as string))));
    ciphertext.comment = plaintext.comment;
    const arg = new YAMLMap();
    arg.add(doc.createPair('ciphertext', ciphertext));
    arg.commentBefore = plaintext.commentBefore;
    site.pair.value = arg;
  }
  return render(doc);
}

/**
 * Replaces every secret (`fn::secret: {ciphertext: …}`, or a plaintext one) by `label(ciphertext)` (`label('')` for a
 * plaintext one), keeping the rest: a definition to show to someone who may read it but not reveal its secrets. A
 * definition without secrets comes back byte for byte.
 */
export function redactSecrets(yamlText: string, label: (ciphertext: string) => string): string {
  const doc = parseStrict(yamlText);
  const sites = secretSites(doc.contents, []);
  if (sites.length === 0) return yamlText;
  for (const site of sites) site.pair.value = new Scalar(label(site.ciphertext ? (site.ciphertext.value as string) : ''));
  return render(doc);
}

/**
 * Replaces every `fn::secret: {ciphertext: …}` under `values` by its plaintext, keeping comments; what
 * `env edit` shows. A ciphertext that is not ESC's envelope, or that does not decrypt, fails the whole rewrite.
 */
export async function decryptSecrets(yamlText: string, decrypt: Decrypt): Promise<string> {
  const doc = parseStrict(yamlText);
  const values = isMap(doc.contents) ? doc.contents.get('values', true) : undefined;
  for (const site of secretSites(values, [])) {
    // A secret still in plaintext (one just added to a sealed definition) is left as it is.
    if (!site.ciphertext) continue;
    const sealed = decodeCiphertext(site.ciphertext.value as string);
    if (typeof sealed === 'string') throw new Error(`invalid ciphertext: ${sealed}`);
    const plaintext = new Scalar(new TextDecoder().decode(await decrypt(sealed)));
    plaintext.comment = site.ciphertext.comment;
    site.pair.value = plaintext as YamlNode;
  }
  return render(doc);
}

/**
 * A value as YAML the definition can hold: plain JSON, with each secret written back as `fn::secret` (a
 * non-string secret as `fn::fromJSON: {fn::secret: <json>}`, since `fn::secret` takes only strings).
 */
export function valueToSecretJSON(v: EscValue): unknown {
  if (v.secret) {
    const plain = toJSON(v, false);
    return typeof plain === 'string' ? { 'fn::secret': plain } : { 'fn::fromJSON': { 'fn::secret': goMarshalJSON(plain) } };
  }
  const inner = v.value;
  if (Array.isArray(inner)) return inner.map(valueToSecretJSON);
  if (inner !== null && typeof inner === 'object') return Object.fromEntries(Object.entries(inner).map(([k, x]) => [k, valueToSecretJSON(x)]));
  return inner;
}

/** Writes rotation state back into a definition: each patch replaces the node at its document path, keeping comments elsewhere. */
export function applyValuePatches(yamlText: string, patches: RotationPatch[]): string {
  const doc = parseStrict(yamlText);
  for (const patch of patches) doc.setIn(parsePath(patch.docPath), doc.createNode(valueToSecretJSON(patch.replacement)));
  return render(doc);
}
