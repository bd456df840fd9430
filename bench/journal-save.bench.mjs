// bench journal-save: what one journal batch costs the server as the stack grows. Each save is what
// `PATCH …/journalentries` runs in the update service (parse the batch, check the integrity of the update's state with
// it, store it; the lease write is left out), on the local storage adapter in a temp folder. The update walks the
// stack in batches of 10 resources (a begin and a success for each, as the CLI sends them); the figure is the median
// time of batches 11 to 110 on a stack of LARGE resources divided by the same on a stack of SMALL resources (the
// two updates save alternately, batch by batch). A cost
// that follows the batch is 1x; a check that replays the whole journal on every save grows with the stack.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalStorage } from '../shared/adapters/local/index.ts';
import { JournalEntryKind, planJournalEntries, recordUpdateBase } from '../shared/core/journal/index.ts';
import { baseDeployment } from './journal-fixture.ts';

const SMALL = Number(process.env.BENCH_JOURNAL_SAVE_SMALL ?? 1_000);
const LARGE = Number(process.env.BENCH_JOURNAL_SAVE_LARGE ?? 20_000);
const PER_BATCH = 10;
const WARMUP = 10;
const MEASURED = 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** An update of a `count`-resource stack, ready to save its batches one by one; `next()` times one save. */
async function journaledUpdate(store, count) {
  const stackId = randomUUID();
  const updateId = randomUUID();
  const base = baseDeployment(count);
  await store.put({ stackId, name: 'checkpoints/base' }, Buffer.from(JSON.stringify(base)));
  await recordUpdateBase(store, stackId, updateId, 'checkpoints/base');
  const loadCheckpoint = async (name) => JSON.parse(Buffer.from(await store.get({ stackId, name })).toString('utf8'));
  const resources = base.deployment.resources;
  let batch = 0;
  let sequenceID = 0;
  return async function next() {
    const entries = [];
    for (let i = batch * PER_BATCH; i < (batch + 1) * PER_BATCH; i++) {
      entries.push({ version: 1, kind: JournalEntryKind.Begin, sequenceID: sequenceID++, operationID: i, removeOld: null, removeNew: null });
      entries.push({ version: 1, kind: JournalEntryKind.Success, sequenceID: sequenceID++, operationID: i, removeOld: i, removeNew: null, state: resources[i] });
    }
    const body = Buffer.from(JSON.stringify({ entries }));
    const started = performance.now();
    const planned = await planJournalEntries(store, stackId, updateId, body, loadCheckpoint, Date.now);
    const outcome = await planned.write(async () => batch);
    const ms = performance.now() - started;
    if (outcome !== 'stored') throw new Error(`batch ${batch} was ${outcome}`);
    batch += 1;
    return ms;
  };
}

const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-journal-save-'));
const storage = await createLocalStorage({ dataDir });
try {
  // Batch by batch, alternating, so a busy machine slows both sides alike.
  const nextSmall = await journaledUpdate(storage.checkpoints, SMALL);
  const nextLarge = await journaledUpdate(storage.checkpoints, LARGE);
  const smallTimes = [];
  const largeTimes = [];
  for (let batch = 0; batch < WARMUP + MEASURED; batch++) {
    const s = await nextSmall();
    const l = await nextLarge();
    if (batch >= WARMUP) {
      smallTimes.push(s);
      largeTimes.push(l);
    }
  }
  const small = median(smallTimes);
  const large = median(largeTimes);
  process.stdout.write(
    `bench journal-save: ${(large / small).toFixed(2)}x (journal batch save at ${LARGE} resources ${large.toFixed(2)} ms / ` +
      `at ${SMALL} resources ${small.toFixed(2)} ms; ${PER_BATCH} resources per batch, median of ${MEASURED}; goal: flat, <= 1.5)\n`,
  );
} finally {
  await storage.close();
  rmSync(dataDir, { recursive: true, force: true });
}
