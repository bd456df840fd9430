// bench event-bytes: an `up` of COUNT resources on the test provider that changes exactly one of them (the second of
// two runs; the first creates them all). Numerator: the gzipped bytes of the engine events the run sends to the
// service, in batches of 50 as the HTTP session sends them (`POST …/events/batch`, gzip). Denominator: the gzipped
// bytes of the journal entries the same run saves (`PATCH …/journalentries`, gzip), same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runOperation } from '../cli/engine/operation.ts';

const COUNT = Number(process.env.BENCH_EVENT_COUNT ?? 1000);
const EVENT_BATCH = 50;
const root = resolve(import.meta.dirname, '..');
const program = { rootDir: join(root, 'test/fixtures/programs/bench'), project: 'bench', stack: 'bench' };
const world = mkdtempSync(join(tmpdir(), 'stackyard-bench-events-'));

/** Runs one `up`; returns its final checkpoint, the gzipped journal batches and the gzipped event batches. */
async function up(base, changed) {
  const journal = [];
  const events = [];
  let checkpoint;
  let summary;
  const backend = {
    crypter: { encrypt: async (p) => p, decrypt: async (c) => c },
    async begin(_kind, dryRun) {
      return {
        base,
        // The first run only sets the stage: it saves whole checkpoints so the second can start from the last one.
        persister: dryRun || base ? undefined : { save: async (c) => void (checkpoint = c) },
        journal: dryRun || !base ? undefined : { append: async (entries) => void journal.push(gzipSync(JSON.stringify({ entries }))) },
        recordEvents: (batch) => events.push(...batch),
        complete: async (o) => void (summary = o.summary),
      };
    },
  };
  const code = await runOperation({
    command: 'up',
    flags: { yes: true, skipPreview: true },
    program,
    config: { 'bench:count': { value: String(COUNT), secret: false }, 'bench:changed': { value: String(changed), secret: false } },
    backend,
    write: () => {},
    env: { ...process.env, TESTPROV_WORLD: world },
    projectPlugins: [{ name: 'testprov', path: join(root, 'test/fixtures/providers/testprov') }],
  });
  if (code !== 0) throw new Error(`up failed with exit code ${code}`);
  const batches = [];
  for (let i = 0; i < events.length; i += EVENT_BATCH) batches.push(gzipSync(JSON.stringify({ events: events.slice(i, i + EVENT_BATCH) })));
  return { checkpoint, journal, batches, events, summary };
}

try {
  const first = await up(undefined, -1);
  const second = await up(JSON.parse(first.checkpoint.text), Math.floor(COUNT / 2));
  if (second.summary.update !== 1) throw new Error(`expected one update, got ${JSON.stringify(second.summary)}`);
  const eventBytes = second.batches.reduce((n, b) => n + b.length, 0);
  const journalBytes = second.journal.reduce((n, b) => n + b.length, 0);
  console.log(
    `bench event-bytes: ${(eventBytes / journalBytes).toFixed(2)}x (${eventBytes} B of engine events in ${second.events.length} events / ` +
      `${journalBytes} B of journal entries in ${second.journal.length} saves; 1 of ${COUNT} resources changed; gzipped; goal <= 5)`,
  );
} finally {
  rmSync(world, { recursive: true, force: true });
}
