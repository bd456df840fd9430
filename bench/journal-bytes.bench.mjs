// bench journal-bytes: gzipped bytes our journaling client sends for an update that changes 1 of 10,000 resources,
// divided by the gzipped bytes of the full checkpoints the same update sends without journaling (same run). The
// journal is replayed onto the base and must reproduce the final state, so the ratio is of equivalent saves.
import { replayJournal } from '../shared/core/journal/index.ts';
import { baseDeployment, runUpdate } from './journal-fixture.ts';

const COUNT = Number(process.env.BENCH_JOURNAL_COUNT ?? 10_000);
const base = baseDeployment(COUNT);
const { final, checkpoints, journalBatches, entries } = runUpdate(base, Math.floor(COUNT / 2));

const replayed = replayJournal(base, entries, { now: () => 0 }).deployment.resources ?? [];
const expected = new Map(final.deployment.resources.map((r) => [r.urn, JSON.stringify(r)]));
if (replayed.length !== expected.size || replayed.some((r) => expected.get(r.urn) !== JSON.stringify(r))) {
  throw new Error('journal replay does not reproduce the final state');
}

const journalBytes = journalBatches.reduce((n, b) => n + b.length, 0);
const fullBytes = checkpoints.reduce((n, b) => n + b.length, 0);
const ratio = journalBytes / fullBytes;
console.log(
  `bench journal-bytes: ${ratio.toFixed(5)}x (${journalBytes} B in ${entries.length} journal entries / ` +
    `${fullBytes} B in ${checkpoints.length} full checkpoints; 1 of ${COUNT} resources changed; goal <= 0.001)`,
);
