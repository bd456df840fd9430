// bench journal-replay: server time to materialise the update of the journal-bytes bench (1 of 10,000 resources
// changed) at `complete` -- read the recorded base and the journal from the object store, replay, store the result --
// divided by the server time to take one full checkpoint of the same state (gunzip + parse the request body, store
// it). Both run against the S3 adapter on the s3rver stand-in, same run; medians of 15 rounds.
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { appendJournalBatch, currentUpdateDeployment, parseJournalBatch, recordUpdateBase } from '../shared/core/journal/index.ts';
import { startS3rverCheckpointStore } from '../test/support/s3rver-checkpoint-store.ts';
import { baseDeployment, runUpdate } from './journal-fixture.ts';

const COUNT = Number(process.env.BENCH_JOURNAL_COUNT ?? 10_000);
// 5 rounds read 1.50x to 1.59x for the same code on a quiet machine: 15 make the median steadier.
const ROUNDS = Number(process.env.BENCH_JOURNAL_ROUNDS ?? 15);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The second figure collects garbage between the timed sides; the flag makes `gc` reachable without a node option.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

const s3rver = await startS3rverCheckpointStore('bench');
try {
  const { store } = s3rver;
  const base = baseDeployment(COUNT);
  const { checkpoints, journalBatches } = runUpdate(base, Math.floor(COUNT / 2));
  const fullRequest = checkpoints[checkpoints.length - 1];

  /**
   * Medians of ROUNDS rounds of both sides. With `collect`, garbage is collected before each timed side, so neither
   * pays for collecting what the other (or the round's set-up) left behind: the full write otherwise runs in a heap
   * shaped by whatever the materialise before it allocated, and changes with it.
   */
  const measure = async (collect) => {
    const materialise = [];
    const fullWrite = [];
    for (let round = 0; round < ROUNDS; round++) {
      const stackId = randomUUID();
      const updateId = randomUUID();
      await store.put({ stackId, name: 'checkpoints/base' }, Buffer.from(JSON.stringify(base)));
      await recordUpdateBase(store, stackId, updateId, 'checkpoints/base');
      for (const batch of journalBatches) {
        const body = gunzipSync(batch);
        await appendJournalBatch(store, stackId, updateId, parseJournalBatch(body), body);
      }

      if (collect) collectGarbage();
      let started = performance.now();
      const current = await currentUpdateDeployment(store, stackId, updateId, Date.now);
      await store.put({ stackId, name: `checkpoints/materialised` }, current.text);
      materialise.push(performance.now() - started);
      if (current.resourceCount !== COUNT) throw new Error(`materialised ${current.resourceCount} resources, expected ${COUNT}`);

      if (collect) collectGarbage();
      started = performance.now();
      const request = JSON.parse(gunzipSync(fullRequest).toString('utf8'));
      await store.put({ stackId, name: 'checkpoints/full' }, Buffer.from(JSON.stringify({ version: request.version, deployment: request.deployment })));
      fullWrite.push(performance.now() - started);
    }
    return { m: median(materialise), f: median(fullWrite) };
  };
  const { m, f } = await measure(false);
  console.log(
    `bench journal-replay: ${(m / f).toFixed(2)}x (materialise at complete ${m.toFixed(0)} ms / one full checkpoint ` +
      `write ${f.toFixed(0)} ms; ${COUNT} resources, median of ${ROUNDS}; goal <= 1.5)`,
  );
  const collected = await measure(true);
  console.log(
    `bench journal-replay-collected: ${(collected.m / collected.f).toFixed(2)}x (the same, garbage collected before ` +
      `each side: ${collected.m.toFixed(0)} ms / ${collected.f.toFixed(0)} ms)`,
  );
} finally {
  await s3rver.stop();
}
