/**
 * Property tests for the journal replayer. A small engine simulation runs generated steps (refresh, same, update,
 * replace, delete, create, outputs; each succeeding, failing or left unfinished) and feeds every mutation to two
 * snapshot managers at once: the journaling one, which emits entries exactly as Pulumi's JournalSnapshotManager
 * does, and a deliberately naive full-checkpoint model that holds the engine's own objects, as Pulumi's classic
 * SnapshotManager does. After a generated crash point, replaying the entries must give the model's deployment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayJournal } from './index.js';
import type { JournalEntry } from './index.js';
import { prng } from '../../../test/support/prng.js';
import { run, scenario, strip } from '../../../test/support/journal-simulation/scenario.js';
import { NOW } from '../../../test/support/journal-simulation/snapshot-managers.js';
describe('journal replayer', () => {
  it('replays to the deployment full checkpoints produce, at the end and after any crash point', () => {
    fc.assert(
      fc.property(scenario(300), (s) => {
        const { base, entries, expected } = run(s);
        const replayed = replayJournal(base, entries, { now: () => NOW });
        expect(strip(replayed)).toEqual(strip(expected));
        expect(replayed.deployment.manifest.time).toBe(new Date(NOW).toISOString());
      }),
      { numRuns: 300 },
    );
  });

  it('holds for bases of up to 2,000 resources', () => {
    fc.assert(
      fc.property(scenario(2000).map((s) => ({ ...s, n: 1000 + (s.n % 1001) })), (s) => {
        const { base, entries, expected } = run(s);
        expect(strip(replayJournal(base, entries, { now: () => NOW }))).toEqual(strip(expected));
      }),
      { numRuns: 25 },
    );
  });

  it('is unaffected by batch order and repeated batches', () => {
    fc.assert(
      fc.property(scenario(100), fc.integer({ min: 1, max: 20 }), fc.integer(), (s, batchSize, shuffleSeed) => {
        const { base, entries } = run({ ...s, cut: Number.MAX_SAFE_INTEGER });
        const batches: JournalEntry[][] = [];
        for (let i = 0; i < entries.length; i += batchSize) batches.push(entries.slice(i, i + batchSize));
        const pick = prng(shuffleSeed);
        const delivered = [...batches, ...batches.filter(() => pick(3) === 0)];
        for (let i = delivered.length - 1; i > 0; i--) {
          const j = pick(i + 1);
          [delivered[i], delivered[j]] = [delivered[j]!, delivered[i]!];
        }
        expect(replayJournal(base, delivered.flat(), { now: () => NOW })).toEqual(
          replayJournal(base, entries, { now: () => NOW }),
        );
      }),
      { numRuns: 100 },
    );
  });
});
