/**
 * Per-update persistence for the incremental save protocols: journal batches (`journalentries`) and verbatim/delta
 * checkpoints (`checkpointverbatim`, `checkpointdelta`), plus building the update's current deployment from them
 * (for export while the update runs, and once at `complete` so later reads never pay for replay).
 *
 * Object names under the stack (all write-once, so every save is idempotent):
 * - `updates/<id>/base`              JSON `{"checkpoint": <stack checkpoint name> | null}` recorded at start
 * - `updates/<id>/journal/<a>-<b>-<n>` one journal batch, as received
 * - `updates/<id>/verbatim/<seq>-<resource count>` the exact bytes of the UntypedDeployment after save number `seq`
   (the count, taken when the save was checked, spares `complete` a parse of a state it only moves)
 */
import { ConflictError, NotFoundError } from '../errors.js';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { decideDelta, decideVerbatim, normalizeVerbatimDeployment, parseDeltaCheckpoint, parseVerbatimCheckpoint, verbatimNeedsNormalizing } from '../checkpoints/checkpoint-delta.js';
import type { SavedCheckpoint } from '../checkpoints/index.js';
import { appendJournalBatch, DEFAULT_MAX_JOURNAL_BATCH_BYTES, journalPrefix, parseJournalBatch, readJournalBatches } from './journal-store.js';
import { checkJournalBatch } from './journal-batch-check.js';
import { replayJournal } from './replayer.js';
import { replayOntoStoredBase } from './stored-base.js';
import { parseStoredDeployment } from '../checkpoints/stored-deployment.js';
import { checkedResourceCount } from '../checkpoints/checkpoint-body.js';
import type { VersionedDeployment } from '../checkpoints/index.js';

const SEQ_DIGITS = 12;

function baseName(updateId: string): string {
  return `updates/${updateId}/base`;
}

function verbatimPrefix(updateId: string): string {
  return `updates/${updateId}/verbatim/`;
}

async function putOnce(store: CheckpointStore, stackId: string, name: string, body: Uint8Array): Promise<boolean> {
  try {
    await store.put({ stackId, name }, body);
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}

/** Records which stack checkpoint the update started from (the base its journal indices refer to). */
export async function recordUpdateBase(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  checkpoint: string | undefined,
): Promise<void> {
  await putOnce(store, stackId, baseName(updateId), Buffer.from(JSON.stringify({ checkpoint: checkpoint ?? null })));
}

/** The stack checkpoint name recorded by `recordUpdateBase` (`undefined` = the stack had no state). */
export async function readUpdateBase(store: CheckpointStore, stackId: string, updateId: string): Promise<string | undefined> {
  try {
    const parsed = JSON.parse(Buffer.from(await store.get({ stackId, name: baseName(updateId) })).toString('utf8')) as {
      checkpoint: string | null;
    };
    return parsed.checkpoint ?? undefined;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * A checked save, ready to write: `write` calls `commit` (the caller's token write, which numbers the save) only
 * when something is to be stored, then stores it. Everything that can reject the save has run before, so a rejected
 * save changes nothing.
 */
export interface PlannedSave {
  write(commit: () => Promise<unknown>): Promise<'stored' | 'already-applied'>;
}

const ALREADY_APPLIED: PlannedSave = { write: async () => 'already-applied' };

/**
 * Checks a `journalentries` body (gunzipped): its shape, and that the update's state with these entries replayed
 * onto what is stored passes the integrity check (`checkJournalBatch`: incremental when this process holds the
 * update's index, else from storage). A repeated batch is accepted and changes nothing.
 */
export async function planJournalEntries(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  body: Buffer,
  loadCheckpoint: CheckpointLoader,
  now: () => number,
  maxBatchBytes = DEFAULT_MAX_JOURNAL_BATCH_BYTES,
): Promise<PlannedSave> {
  const entries = parseJournalBatch(body, maxBatchBytes);
  if (entries.length === 0) return ALREADY_APPLIED;
  const loadBase = async () => {
    const baseCheckpoint = await readUpdateBase(store, stackId, updateId);
    return baseCheckpoint ? loadCheckpoint(baseCheckpoint) : undefined;
  };
  const checked = await checkJournalBatch(store, stackId, updateId, entries, loadBase, now);
  return {
    async write(commit) {
      await commit();
      const created = await appendJournalBatch(store, stackId, updateId, entries, body);
      checked.stored(created);
      return created ? 'stored' : 'already-applied';
    },
  };
}

/** A verbatim/delta save as stored, with the resource count its name records (absent in older names). */
interface StoredSave extends SavedCheckpoint {
  resourceCount?: number;
}

/** The update's last verbatim/delta save, if any. */
export async function lastSavedCheckpoint(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
): Promise<StoredSave | undefined> {
  const names = await store.list(stackId, verbatimPrefix(updateId));
  const last = names[names.length - 1];
  if (last === undefined) return undefined;
  const bytes = Buffer.from(await store.get({ stackId, name: last }));
  const [sequence, count] = last.slice(verbatimPrefix(updateId).length).split('-');
  return { sequenceNumber: Number(sequence), bytes, ...(count === undefined ? {} : { resourceCount: Number(count) }) };
}

function plannedStore(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  last: SavedCheckpoint | undefined,
  seq: number,
  bytes: Buffer,
  what: string,
): PlannedSave {
  const resourceCount = checkedResourceCount(bytes, what);
  return {
    async write(commit) {
      await commit();
      // A verbatim that repeats the number of an applied save carries the same document; the first copy stands.
      if (last?.sequenceNumber === seq) return 'stored';
      const name = `${verbatimPrefix(updateId)}${String(seq).padStart(SEQ_DIGITS, '0')}-${resourceCount}`;
      await putOnce(store, stackId, name, bytes);
      return 'stored';
    },
  };
}

/** Checks a `checkpointverbatim` body (gunzipped): its envelope and the document it carries. */
export async function planVerbatimCheckpoint(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  body: Buffer,
): Promise<PlannedSave> {
  const incoming = parseVerbatimCheckpoint(body);
  const last = await lastSavedCheckpoint(store, stackId, updateId);
  const decision = decideVerbatim(last, incoming);
  if (decision.action === 'already-applied') return ALREADY_APPLIED;
  return plannedStore(store, stackId, updateId, last, incoming.sequenceNumber, decision.bytes, 'verbatim checkpoint');
}

/**
 * Checks a `checkpointdelta` body (gunzipped): applies the edits to the last saved bytes, checks the hash and the
 * resulting document. Mismatches and gaps throw 4xx domain errors so the CLI falls back to a verbatim save.
 */
export async function planDeltaCheckpoint(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  body: Buffer,
): Promise<PlannedSave> {
  const incoming = parseDeltaCheckpoint(body);
  const last = await lastSavedCheckpoint(store, stackId, updateId);
  const decision = decideDelta(last, incoming);
  if (decision.action === 'already-applied') return ALREADY_APPLIED;
  return plannedStore(store, stackId, updateId, last, incoming.sequenceNumber, decision.bytes, 'checkpoint after the delta');
}

/** Loads a stack checkpoint by name (the API decides how checkpoints are stored). */
export type CheckpointLoader = (name: string) => Promise<VersionedDeployment>;

/** The deployment an update has produced so far through journaling or verbatim/delta saves. */
export interface UpdateDeployment {
  source: 'journal' | 'verbatim';
  /** The UntypedDeployment as JSON text, ready to store or serve. */
  text: Buffer;
  resourceCount: number;
}

/**
 * Builds the update's current deployment: the journal replayed onto the recorded base (up to the last stored
 * entry), or the last verbatim/delta document normalised for export. `undefined` when the update saved nothing
 * through these protocols. The base is the stack checkpoint recorded at start, read from `store` as the API reads
 * stack checkpoints (`parseStoredDeployment`).
 */
export async function currentUpdateDeployment(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  now: () => number,
): Promise<UpdateDeployment | undefined> {
  // Independent reads, asked together: `complete` waits for one round trip here, not three in a row. The base
  // record is read even for an update that saved nothing this way; it is one small object.
  const [journalNames, saved, baseCheckpoint] = await Promise.all([
    store.list(stackId, journalPrefix(updateId)),
    lastSavedCheckpoint(store, stackId, updateId),
    readUpdateBase(store, stackId, updateId),
  ]);
  const readBase = async () => {
    if (!baseCheckpoint) return undefined;
    const bytes = await store.get({ stackId, name: baseCheckpoint });
    // A view of the bytes read, not a copy: the base can be tens of megabytes.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  if (journalNames.length > 0) {
    // The base and the batches just listed are read together; the listing above is the journal replayed.
    const [baseBytes, entries] = await Promise.all([readBase(), readJournalBatches(store, stackId, journalNames)]);
    const spliced = baseBytes && replayOntoStoredBase(baseBytes, entries, { now });
    if (spliced) return { source: 'journal', ...spliced };
    const base = baseBytes && parseStoredDeployment(baseBytes, baseCheckpoint!);
    const replayed = replayJournal(base, entries, { now });
    return { source: 'journal', text: Buffer.from(JSON.stringify(replayed)), resourceCount: replayed.deployment.resources?.length ?? 0 };
  }
  if (!saved) return undefined;
  const baseBytes = await readBase();
  const base = baseBytes && parseStoredDeployment(baseBytes, baseCheckpoint!);
  const carry = { snippets: base?.deployment.snippets, extensions: base?.deployment.extensions };
  if (!verbatimNeedsNormalizing(saved.bytes, carry)) {
    return { source: 'verbatim', text: saved.bytes, resourceCount: saved.resourceCount ?? countResources(saved.bytes) };
  }
  const normalized = normalizeVerbatimDeployment(saved.bytes, carry);
  return { source: 'verbatim', text: Buffer.from(JSON.stringify(normalized)), resourceCount: normalized.deployment.resources?.length ?? 0 };
}

function countResources(bytes: Buffer): number {
  const parsed = JSON.parse(bytes.toString('utf8')) as { deployment?: { resources?: unknown[] } };
  return parsed.deployment?.resources?.length ?? 0;
}
