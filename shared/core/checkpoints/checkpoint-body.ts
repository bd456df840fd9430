/**
 * What the service accepts as the state of a running update, whichever protocol carried it (plain checkpoint,
 * verbatim or delta document, journal replay): a JSON object with a supported `version`, a `deployment` object whose
 * resources pass the integrity check Pulumi's CLI runs before it saves (`findIntegrityViolation`).
 *
 * One exception, as in Pulumi: when the CLI finds its own snapshot broken it still saves it, marked with
 * `deployment.metadata.integrity_error` (what failed, by which command), so the resources it created are not lost
 * and `pulumi state repair` can fix the state later. Such a declared state is stored; an undeclared broken one is a
 * 400 that names the resource and the rule, and nothing is stored.
 */
import { InvalidInputError, TooLargeError } from '../errors.js';
import { declaresIntegrityError, findIntegrityViolation, integrityError, type IntegrityResource } from './deployment-integrity.js';
import { DeploymentScan, soundDeploymentResourceCount } from './deployment-scan.js';
import { MAX_OBJECT_BYTES, type CheckpointStore, type PreparedObject } from '../../ports/checkpoint-store.js';
import type { CheckpointUpload, UntypedDeployment } from './types.js';

/** Deployment schema versions a running update may save (1 and 2 are legacy forms the Pulumi CLI still reads). */
const MIN_VERSION = 1;
const MAX_VERSION = 4;

/** Checks a parsed deployment document; `what` names it in the error ("checkpoint", "verbatim checkpoint", …). */
export function checkDeploymentDocument(document: unknown, what: string): asserts document is UntypedDeployment {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new InvalidInputError(`The ${what} must be an object with "version" and "deployment".`);
  }
  const { version, features, deployment } = document as Record<string, unknown>;
  if (!Number.isInteger(version) || (version as number) < MIN_VERSION || (version as number) > MAX_VERSION) {
    throw new InvalidInputError(
      `Unsupported deployment "version" ${(JSON.stringify(version) ?? 'undefined').slice(0, 40)} in the ${what}: expected ` +
        `${MIN_VERSION} to ${MAX_VERSION}. Upgrade the CLI that sent it, or export and import the state again.`,
    );
  }
  if (deployment === null || typeof deployment !== 'object' || Array.isArray(deployment)) {
    throw new InvalidInputError(`The ${what}'s "deployment" must be a JSON object.`);
  }
  if (features !== undefined && features !== null) {
    if (!Array.isArray(features) || features.some((f) => typeof f !== 'string')) {
      throw new InvalidInputError(`The ${what}'s "features" must be a list of strings.`);
    }
  }
  const { resources, metadata } = deployment as { resources?: unknown; metadata?: { integrity_error?: unknown } };
  if (resources === undefined || resources === null) return;
  if (!Array.isArray(resources)) throw new InvalidInputError(`The ${what}'s "deployment.resources" must be a list.`);
  if (declaresIntegrityError(metadata)) return;
  const violation = findIntegrityViolation(resources as IntegrityResource[]);
  if (violation) throw integrityError(what, violation);
}


/** Parses stored or received bytes as a deployment document and checks it. */
export function checkDeploymentBytes(bytes: Uint8Array, what: string): UntypedDeployment {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    const detail = error instanceof SyntaxError ? ` (${error.message.slice(0, 200)})` : '';
    throw new InvalidInputError(`The ${what} is not valid JSON${detail}; send the deployment as a JSON object.`);
  }
  checkDeploymentDocument(parsed, what);
  return parsed;
}

/**
 * Below this size a state is checked by parsing it: V8's parser is faster than the scan, and the objects it builds
 * are small. From here on the scan's memory saving (about twice the state's size) is worth its CPU.
 */
const SCAN_FROM_BYTES = 8 * 1024 * 1024;

/**
 * Checks a deployment sent as bytes and counts its resources: a large one by scanning the bytes when they are sound,
 * else (small, or not sound) by the full parse, which gives the verdict and the message.
 */
export function checkedResourceCount(bytes: Uint8Array, what: string): number {
  const scanned = bytes.byteLength >= SCAN_FROM_BYTES ? soundDeploymentResourceCount(bytes) : undefined;
  return scanned ?? resourceCountOf(checkDeploymentBytes(bytes, what));
}

/** A plain checkpoint that passed the check, compressed for storage, with what `complete` records about it. */
export interface CheckedCheckpoint {
  prepared: PreparedObject;
  resourceCount: number;
}

/** Number of resources of a checked deployment document. */
export function resourceCountOf(document: UntypedDeployment): number {
  const resources = (document.deployment as { resources?: unknown }).resources;
  return Array.isArray(resources) ? resources.length : 0;
}

/**
 * Checks a plain checkpoint and gets it ready for storage. Request bytes are stored as received (readers pick
 * `version`, `features` and `deployment`): the client's own gzip bytes when it sent them, else compressed off the
 * main thread while they are parsed and checked. The resource count is taken from the check, so nothing needs to
 * read the state back to count it.
 */
export async function prepareCheckpoint(
  store: CheckpointStore,
  deployment: UntypedDeployment | Uint8Array | CheckpointUpload,
): Promise<CheckedCheckpoint> {
  if (deployment instanceof Uint8Array) return prepareBytes(store, deployment);
  if (!isUpload(deployment)) {
    checkDeploymentDocument(deployment, 'checkpoint');
    const { version, features, deployment: body } = deployment;
    const stored = features && features.length > 0 ? { version, features, deployment: body } : { version, deployment: body };
    return { prepared: await store.prepare(Buffer.from(JSON.stringify(stored))), resourceCount: resourceCountOf(deployment) };
  }
  const { gzipped } = deployment;
  if (!gzipped) return prepareBytes(store, await readAll(deployment));
  // Stored as the client compressed it, so the inflated bytes are only checked: a large state is scanned chunk by
  // chunk as it is inflated and never held whole (40 MB inflated, the save held it twice over until the garbage
  // collector ran, which it often did not before the next request).
  const smallChunks: Uint8Array[] = [];
  let size = 0;
  let scan: DeploymentScan | undefined;
  for await (const chunk of deployment.chunks()) {
    size += chunk.byteLength;
    if (scan) {
      scan.push(chunk);
      continue;
    }
    smallChunks.push(chunk);
    if (size < SCAN_FROM_BYTES) continue;
    scan = new DeploymentScan();
    for (const held of smallChunks.splice(0)) scan.push(held);
  }
  checkSize(size);
  const resourceCount = scan
    ? (scan.end() ?? resourceCountOf(checkDeploymentBytes(await readAll(deployment), 'checkpoint')))
    : resourceCountOf(checkDeploymentBytes(joined(smallChunks), 'checkpoint'));
  return { prepared: { gzipped, size }, resourceCount };
}

/** A checkpoint sent as plain bytes: compressed for storage while it is checked. */
async function prepareBytes(store: CheckpointStore, bytes: Uint8Array): Promise<CheckedCheckpoint> {
  checkSize(bytes.byteLength);
  const compressing = store.prepare(bytes);
  let resourceCount: number;
  try {
    resourceCount = checkedResourceCount(bytes, 'checkpoint');
  } catch (error) {
    await compressing.catch(() => undefined);
    throw error;
  }
  return { prepared: await compressing, resourceCount };
}

function checkSize(bytes: number): void {
  if (bytes > MAX_OBJECT_BYTES) {
    throw new TooLargeError(`A checkpoint of ${bytes} bytes is over the limit of ${MAX_OBJECT_BYTES} bytes (50 MB).`);
  }
}

function isUpload(value: UntypedDeployment | CheckpointUpload): value is CheckpointUpload {
  return typeof (value as CheckpointUpload).chunks === 'function';
}

/** An upload's decoded bytes, all at once: a small state, or the full check's verdict on one the scan did not accept. */
async function readAll(upload: CheckpointUpload): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of upload.chunks()) chunks.push(chunk);
  return joined(chunks);
}

/** Chunks as one buffer; one chunk as it is, not copied. */
function joined(chunks: Uint8Array[]): Buffer {
  return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks);
}
