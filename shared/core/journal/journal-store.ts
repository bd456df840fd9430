/**
 * Durable, idempotent storage of journal batches in the checkpoint store. Each batch is one write-once object named
 * after its first and last `sequenceID`, so a retried batch lands on the same name and is recognised as already
 * stored; overlapping batches (a retry split differently) are harmless because replay keeps one entry per
 * `sequenceID`.
 */
import { ConflictError, InvalidInputError, TooLargeError } from '../errors.js';
import { MAX_OBJECT_BYTES } from '../../ports/checkpoint-store.js';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { orderJournal } from './replayer.js';
import { entryShapeProblem } from './resource-shape.js';
import type { JournalEntry } from './types.js';

/**
 * Largest journal batch (uncompressed bytes) accepted; larger ones get 413 and the CLI splits them in half. A single
 * `write` entry carries a whole deployment, so the limit is the object store's, not a typical batch's.
 */
export const DEFAULT_MAX_JOURNAL_BATCH_BYTES = MAX_OBJECT_BYTES;

/** Name prefix of an update's journal objects. */
export function journalPrefix(updateId: string): string {
  return `updates/${updateId}/journal/`;
}

/** Parses and checks a `journalentries` body (already gunzipped). */
export function parseJournalBatch(body: Uint8Array, maxBytes = DEFAULT_MAX_JOURNAL_BATCH_BYTES): JournalEntry[] {
  if (body.byteLength > maxBytes) {
    throw new TooLargeError(
      `Journal batch of ${body.byteLength} bytes exceeds the ${maxBytes}-byte limit; send fewer entries per batch.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new InvalidInputError('Journal batch is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidInputError('Journal batch must be an object with an "entries" array.');
  }
  const entries = (parsed as { entries?: unknown }).entries ?? [];
  if (!Array.isArray(entries)) throw new InvalidInputError('Journal batch "entries" must be an array.');
  for (const [i, e] of entries.entries()) {
    const problem = entryProblem(e, `entries.${i}`);
    if (problem) throw new InvalidInputError(`Invalid journal batch: ${problem}.`);
  }
  return entries as JournalEntry[];
}

/** What is wrong with one entry of a batch, naming the field by its path (`where` is the entry's own). */
function entryProblem(e: unknown, where: string): string | undefined {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return `"${where}" must be a journal entry object`;
  const entry = e as Partial<JournalEntry>;
  if (!Number.isSafeInteger(entry.sequenceID) || (entry.sequenceID as number) < 0) {
    return `"${where}.sequenceID" must be a non-negative integer`;
  }
  if (!Number.isInteger(entry.kind) || (entry.kind as number) < 0 || (entry.kind as number) > 9) {
    // JSON.stringify, not String: the value is the client's, and an object of theirs may not convert to text.
    return `"${where}.kind" must be a journal entry kind, 0 to 9 (got ${(JSON.stringify(entry.kind) ?? 'nothing').slice(0, 40)})`;
  }
  // Go decodes null into the int64 as 0.
  if (!Number.isSafeInteger(entry.operationID ?? 0)) return `"${where}.operationID" must be an integer`;
  return entryShapeProblem(entry as Record<string, unknown>, where);
}

const SEQ_DIGITS = 16;

/** The write-once object name of a batch: its first and last `sequenceID` and its length. */
export function batchName(updateId: string, entries: readonly JournalEntry[]): string {
  let first = Infinity;
  let last = -Infinity;
  for (const e of entries) {
    first = Math.min(first, e.sequenceID);
    last = Math.max(last, e.sequenceID);
  }
  const pad = (n: number) => String(n).padStart(SEQ_DIGITS, '0');
  return `${journalPrefix(updateId)}${pad(first)}-${pad(last)}-${entries.length}`;
}

/**
 * Stores one batch durably. Returns `false` when the same batch was stored before (a retry), `true` otherwise.
 * `body` is the request's exact JSON, stored as received.
 */
export async function appendJournalBatch(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  entries: readonly JournalEntry[],
  body: Uint8Array,
): Promise<boolean> {
  if (entries.length === 0) return false;
  try {
    await store.put({ stackId, name: batchName(updateId, entries) }, body);
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}

/** Every stored entry of an update, in `sequenceID` order, one per `sequenceID`. */
export async function loadJournal(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  concurrency = 16,
): Promise<JournalEntry[]> {
  return (await loadJournalBatches(store, stackId, updateId, concurrency)).entries;
}

/** The names of an update's stored batches (sorted) and every entry they hold, as `loadJournal` orders them. */
export async function loadJournalBatches(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  concurrency = 16,
): Promise<{ names: string[]; entries: JournalEntry[] }> {
  const names = await store.list(stackId, journalPrefix(updateId));
  return { names, entries: await readJournalBatches(store, stackId, names, concurrency) };
}

/** Every entry of the named batches (from a listing the caller already made), as `loadJournal` orders them. */
export async function readJournalBatches(
  store: CheckpointStore,
  stackId: string,
  names: readonly string[],
  concurrency = 16,
): Promise<JournalEntry[]> {
  const batches: JournalEntry[][] = new Array(names.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const i = next++;
      const body = await store.get({ stackId, name: names[i]! });
      batches[i] = parseJournalBatch(body, Number.MAX_SAFE_INTEGER);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
  return orderJournal(batches.flat());
}
