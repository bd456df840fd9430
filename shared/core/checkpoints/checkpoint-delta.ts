/**
 * Verbatim and delta checkpoints (`checkpointverbatim` / `checkpointdelta`). The CLI diffs the exact bytes of its
 * last saved document, so the server keeps the bytes of `untypedDeployment` exactly as they appear in the request
 * (sliced out by a small JSON scanner, never re-serialised) and applies byte-offset edits to those bytes. All work
 * here is on `Buffer`s: JS string indices are UTF-16 and would corrupt non-ASCII state.
 */
import { createHash } from 'node:crypto';
import { ConflictError, InvalidInputError } from '../errors.js';
import type { VersionedDeployment } from './types.js';

/** Default delta cut-off advertised in `delta-checkpoint-uploads-v2` (documents smaller than this go verbatim). */
export const DEFAULT_CHECKPOINT_CUTOFF_BYTES = 1024 * 1024;

/** A `PATCH …/checkpointverbatim` body with the deployment kept as raw bytes. */
export interface VerbatimCheckpoint {
  version: number;
  sequenceNumber: number;
  /** The exact bytes of the request's `untypedDeployment` value. */
  untypedDeployment: Buffer;
}

/** One `hexops/gotextdiff` TextEdit; only the byte offsets matter. */
export interface TextEdit {
  Span: { uri?: string; start: { offset: number; line?: number; column?: number }; end: { offset: number; line?: number; column?: number } };
  NewText: string;
}

/** A `PATCH …/checkpointdelta` body. */
export interface DeltaCheckpoint {
  version: number;
  sequenceNumber: number;
  checkpointHash: string;
  deploymentDelta: TextEdit[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(buf: Uint8Array, i: number): number {
  while (i < buf.length && isSpace(buf[i])) i++;
  return i;
}

function malformed(what: string): never {
  throw new InvalidInputError(`Malformed checkpoint body: ${what}.`);
}

/** Index just past the string starting at `i` (which holds the opening quote). */
function stringEnd(buf: Buffer, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, j);
    if (q < 0) malformed('unterminated string');
    let slashes = 0;
    for (let k = q - 1; k > i && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just past the JSON value starting at `i`. */
function valueEnd(buf: Buffer, i: number): number {
  const c = buf[i];
  if (c === QUOTE) return stringEnd(buf, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    while (j < buf.length) {
      const b = buf[j]!;
      if (b === QUOTE) {
        j = stringEnd(buf, j);
        continue;
      }
      if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    malformed('unterminated object or array');
  }
  let j = i;
  while (j < buf.length) {
    const b = buf[j];
    if (b === 0x2c || b === 0x7d || b === 0x5d || isSpace(b)) break;
    j++;
  }
  if (j === i) malformed('missing value');
  return j;
}

/**
 * The byte ranges of the members of the JSON object in `buf[start, end)`, keyed by member name. Values are not
 * parsed, only delimited, so a multi-megabyte deployment costs one linear scan.
 */
export function objectMembers(buf: Buffer, start = 0, end = buf.length): Map<string, { start: number; end: number }> {
  const members = new Map<string, { start: number; end: number }>();
  let i = skipSpace(buf, start);
  if (buf[i] !== 0x7b) malformed('expected an object');
  i = skipSpace(buf, i + 1);
  if (buf[i] === 0x7d) return members;
  while (i < end) {
    if (buf[i] !== QUOTE) malformed('expected a member name');
    const keyEnd = stringEnd(buf, i);
    const key = JSON.parse(buf.toString('utf8', i, keyEnd)) as string;
    i = skipSpace(buf, keyEnd);
    if (buf[i] !== 0x3a) malformed('expected ":"');
    i = skipSpace(buf, i + 1);
    const vEnd = valueEnd(buf, i);
    members.set(key, { start: i, end: vEnd });
    i = skipSpace(buf, vEnd);
    if (buf[i] === 0x2c) {
      i = skipSpace(buf, i + 1);
      continue;
    }
    if (buf[i] === 0x7d) return members;
    malformed('expected "," or "}"');
  }
  malformed('unterminated object');
}

function smallMember(buf: Buffer, members: Map<string, { start: number; end: number }>, key: string): unknown {
  const span = members.get(key);
  if (!span) return undefined;
  try {
    return JSON.parse(buf.toString('utf8', span.start, span.end));
  } catch {
    return malformed(`"${key}" is not valid JSON`);
  }
}

function positiveInteger(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1) malformed(`"${name}" must be a positive integer`);
  return value as number;
}

/** Reads a verbatim body (gunzipped) and slices out the deployment bytes without re-serialising them. */
export function parseVerbatimCheckpoint(body: Buffer): VerbatimCheckpoint {
  const members = objectMembers(body);
  const span = members.get('untypedDeployment');
  if (!span || body[span.start] !== 0x7b) malformed('"untypedDeployment" must be an object');
  const version = smallMember(body, members, 'version') ?? 0;
  if (!Number.isSafeInteger(version)) malformed('"version" must be an integer');
  // The deployment document itself must be a well-formed object with a `deployment` member.
  const inner = objectMembers(body, span.start, span.end);
  if (!inner.has('deployment')) malformed('"untypedDeployment" has no "deployment"');
  return {
    version: version as number,
    sequenceNumber: positiveInteger(smallMember(body, members, 'sequenceNumber'), 'sequenceNumber'),
    untypedDeployment: Buffer.from(body.subarray(span.start, span.end)),
  };
}

/** Reads a delta body (gunzipped). */
export function parseDeltaCheckpoint(body: Buffer): DeltaCheckpoint {
  let parsed: Partial<DeltaCheckpoint>;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Partial<DeltaCheckpoint>;
  } catch {
    return malformed('not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) malformed('expected an object');
  if (typeof parsed.checkpointHash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(parsed.checkpointHash)) {
    malformed('"checkpointHash" must be a hex SHA-256');
  }
  const edits = parsed.deploymentDelta ?? [];
  if (!Array.isArray(edits)) malformed('"deploymentDelta" must be an array');
  for (const e of edits) {
    const ok =
      typeof e === 'object' && e !== null && typeof e.NewText === 'string' &&
      Number.isSafeInteger(e.Span?.start?.offset) && Number.isSafeInteger(e.Span?.end?.offset);
    if (!ok) malformed('each edit of "deploymentDelta" needs integer Span.start.offset and Span.end.offset and a string NewText');
  }
  return {
    version: Number.isSafeInteger(parsed.version) ? (parsed.version as number) : 0,
    sequenceNumber: positiveInteger(parsed.sequenceNumber, 'sequenceNumber'),
    checkpointHash: parsed.checkpointHash!.toLowerCase(),
    deploymentDelta: edits,
  };
}

/**
 * Applies edits to `before` by byte offset: sorted by start, each copies the untouched bytes up to its start and
 * then its new text. Overlapping or out-of-range edits fail with `InvalidInputError`.
 */
export function applyTextEdits(before: Buffer, edits: readonly TextEdit[]): Buffer {
  const sorted = edits
    .map((e, i) => ({ start: e.Span.start.offset, end: e.Span.end.offset, text: e.NewText, i }))
    .sort((a, b) => a.start - b.start || a.i - b.i);
  const parts: Buffer[] = [];
  let last = 0;
  for (const e of sorted) {
    if (e.start < last || e.end < e.start || e.end > before.length) {
      throw new InvalidInputError(
        `Checkpoint delta edit [${e.start}, ${e.end}) does not fit a ${before.length}-byte document; send a verbatim checkpoint.`,
      );
    }
    if (e.start > last) parts.push(before.subarray(last, e.start));
    if (e.text.length > 0) parts.push(Buffer.from(e.text, 'utf8'));
    last = e.end;
  }
  if (last < before.length) parts.push(before.subarray(last));
  return Buffer.concat(parts);
}

/** Hex SHA-256 of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The last verbatim/delta save of an update. */
export interface SavedCheckpoint {
  sequenceNumber: number;
  bytes: Buffer;
}

/** What to do with an incoming save. */
export type SaveDecision = { action: 'store'; bytes: Buffer } | { action: 'already-applied' };

/**
 * Verbatim rule: a number at or after the last saved one is stored (the CLI repeats a number after a failed delta,
 * and a retried verbatim carries the same bytes); an older one is a late retry and changes nothing.
 */
export function decideVerbatim(last: SavedCheckpoint | undefined, incoming: VerbatimCheckpoint): SaveDecision {
  if (last && incoming.sequenceNumber < last.sequenceNumber) return { action: 'already-applied' };
  return { action: 'store', bytes: incoming.untypedDeployment };
}

/**
 * Delta rule: a number already saved is a retry and is not re-applied; the next number is applied to the last
 * saved bytes and must hash to `checkpointHash`; anything else is refused with a 4xx so the CLI falls back to a
 * verbatim save.
 */
export function decideDelta(last: SavedCheckpoint | undefined, incoming: DeltaCheckpoint): SaveDecision {
  if (last && incoming.sequenceNumber <= last.sequenceNumber) return { action: 'already-applied' };
  if (!last) {
    throw new ConflictError('There is no verbatim checkpoint to apply this delta to; send a verbatim checkpoint.', {
      sequenceNumber: incoming.sequenceNumber,
    });
  }
  if (incoming.sequenceNumber !== last.sequenceNumber + 1) {
    throw new ConflictError(
      `Checkpoint delta ${incoming.sequenceNumber} does not follow the last saved checkpoint ` +
        `${last.sequenceNumber}; send a verbatim checkpoint.`,
      { sequenceNumber: incoming.sequenceNumber, lastSequenceNumber: last.sequenceNumber },
    );
  }
  const bytes = applyTextEdits(last.bytes, incoming.deploymentDelta);
  const hash = sha256Hex(bytes);
  if (hash !== incoming.checkpointHash) {
    throw new InvalidInputError(
      `Checkpoint delta ${incoming.sequenceNumber} does not reproduce the expected document (SHA-256 mismatch); ` +
        'send a verbatim checkpoint.',
    );
  }
  return { action: 'store', bytes };
}

/** Parts of the update's base deployment that the verbatim format never carries. */
export interface VerbatimCarryOver {
  snippets?: unknown[];
  extensions?: Record<string, unknown>;
}

/**
 * Turns a verbatim/delta document into a standard deployment for export: `pendingOperations` (the format's
 * camelCase key) becomes `pending_operations`, and `snippets`/`extensions`, which the format never writes, are
 * carried over from the update's base deployment (adding the `snippets-prototype` feature and schema 4 as needed).
 */
export function normalizeVerbatimDeployment(raw: Buffer, carry: VerbatimCarryOver = {}): VersionedDeployment {
  let doc: VersionedDeployment & { deployment: VersionedDeployment['deployment'] & { pendingOperations?: unknown } };
  try {
    doc = JSON.parse(raw.toString('utf8')) as typeof doc;
  } catch {
    return malformed('stored deployment is not valid JSON');
  }
  const d = doc.deployment;
  if (typeof d !== 'object' || d === null) malformed('stored deployment has no "deployment" object');
  if (d.pendingOperations !== undefined) {
    if (d.pending_operations === undefined && Array.isArray(d.pendingOperations) && d.pendingOperations.length > 0) {
      d.pending_operations = d.pendingOperations as NonNullable<typeof d.pending_operations>;
    }
    delete d.pendingOperations;
  }
  if (d.snippets === undefined && carry.snippets && carry.snippets.length > 0) {
    d.snippets = carry.snippets;
    const features = new Set(doc.features ?? []);
    features.add('snippets-prototype');
    doc.features = [...features].sort();
  }
  if (d.extensions === undefined && carry.extensions && Object.keys(carry.extensions).length > 0) {
    d.extensions = carry.extensions;
  }
  if (doc.features && doc.features.length > 0 && doc.version < 4) doc.version = 4;
  return doc;
}

/** True when a stored verbatim document needs `normalizeVerbatimDeployment` before it can be served as-is. */
export function verbatimNeedsNormalizing(raw: Buffer, carry: VerbatimCarryOver = {}): boolean {
  if (raw.includes('"pendingOperations"')) return true;
  const carries = (carry.snippets?.length ?? 0) > 0 || Object.keys(carry.extensions ?? {}).length > 0;
  if (!carries) return false;
  const top = objectMembers(raw);
  const dep = top.get('deployment');
  if (!dep) return false;
  const inner = objectMembers(raw, dep.start, dep.end);
  return (!inner.has('snippets') && (carry.snippets?.length ?? 0) > 0) ||
    (!inner.has('extensions') && Object.keys(carry.extensions ?? {}).length > 0);
}
