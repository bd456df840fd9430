/**
 * The integrity check of an incoming journal batch, at a cost that follows the batch rather than the stack.
 *
 * The check's verdict is always the one of the full check (`checkDeploymentDocument` over the base with the whole
 * stored journal and the batch replayed onto it). What changes is how it is reached: the process keeps, per running
 * update, a `JournalIntegrityIndex` of the journal it last saw stored, with the names of the batches it covers. A
 * batch is checked against that index alone when the store still holds exactly those batches (one `list` call
 * proves it; any other writer, a failed write, a restarted process or another Lambda instance shows up there) and
 * the batch follows them (every `sequenceID` above the index's). Whatever the index cannot prove sound takes the
 * full check from storage, which accepts or names the first violation as it always did.
 *
 * An index is taken out of the cache while a batch changes it and put back only once that batch is durably stored,
 * so a rejected, failed or concurrent save can never leave an index describing a journal that is not in the store.
 * A cold process (a new Lambda instance) pays the full check once per update and the incremental one afterwards.
 */
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { checkDeploymentDocument } from '../checkpoints/checkpoint-body.js';
import { batchName, journalPrefix, loadJournalBatches } from './journal-store.js';
import { JournalIntegrityIndex } from './journal-integrity.js';
import { orderJournal, replayJournal } from './replayer.js';
import type { JournalEntry } from './types.js';
import type { VersionedDeployment } from '../checkpoints/index.js';

/** Running updates whose index one process keeps (each is a few hundred bytes per resource). */
const MAX_CACHED_UPDATES = 16;

interface CachedIndex {
  /** The stored batch names (sorted) the index covers. */
  names: string[];
  index: JournalIntegrityIndex;
}

const cachesByStore = new WeakMap<CheckpointStore, Map<string, CachedIndex>>();

function cacheOf(store: CheckpointStore): Map<string, CachedIndex> {
  let cache = cachesByStore.get(store);
  if (!cache) cachesByStore.set(store, (cache = new Map()));
  return cache;
}

function install(cache: Map<string, CachedIndex>, key: string, entry: CachedIndex): void {
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_CACHED_UPDATES) cache.delete(cache.keys().next().value!);
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/** A batch that passed the check; `stored` is called once the batch's write returned. */
export interface CheckedJournalBatch {
  /** `true`: this call stored the batch; `false`: a batch of that name was stored before. */
  stored(created: boolean): void;
  /** Whether the index answered (for tests and benchmarks); `false` means the full check ran. */
  readonly incremental: boolean;
}

/**
 * Checks `entries` (a parsed, non-empty batch) against the update's state; throws the full check's 400 when the
 * state with the batch replayed breaks an integrity rule. Nothing is written here.
 */
export async function checkJournalBatch(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  entries: readonly JournalEntry[],
  loadBase: () => Promise<VersionedDeployment | undefined>,
  now: () => number,
): Promise<CheckedJournalBatch> {
  const cache = cacheOf(store);
  const key = `${stackId}/${updateId}`;
  const name = batchName(updateId, entries);
  const ordered = orderJournal(entries);
  const cached = cache.get(key);
  if (cached) {
    const names = await store.list(stackId, journalPrefix(updateId));
    const follows = !names.includes(name) && ordered[0]!.sequenceID > cached.index.maxSequence;
    const current = cache.get(key) === cached && sameNames(cached.names, names);
    // Stale (the store moved on without this process), or about to be changed by this batch: out of the cache.
    if (!current || follows) cache.delete(key);
    if (current && follows) {
      if (cached.index.tryAppend(ordered)) {
        return {
          incremental: true,
          stored(created) {
            if (created) install(cache, key, { names: [...names, name].sort(), index: cached.index });
          },
        };
      }
    }
  }

  const [journal, base] = await Promise.all([loadJournalBatches(store, stackId, updateId), loadBase()]);
  const all = orderJournal([...journal.entries, ...ordered]);
  checkDeploymentDocument(replayJournal(base, all, { now }), "journal batch (replayed onto the update's state)");
  const lastStored = journal.entries[journal.entries.length - 1]?.sequenceID ?? -1;
  // Only a batch that follows everything stored leaves a journal whose order the index can mirror.
  const follows = !journal.names.includes(name) && ordered[0]!.sequenceID > lastStored;
  return {
    incremental: false,
    stored(created) {
      if (!created || !follows) return;
      const index = JournalIntegrityIndex.build(base, all);
      if (index) install(cache, key, { names: [...journal.names, name].sort(), index });
    },
  };
}
