// bench engine-overhead: time of an `up` creating COUNT resources (600 by default; 5,000 for the large figure) on the
// test provider, divided by the time of the same program against a null monitor that answers at once (the program's
// own cost), measured in the same run. Saves go where a default run sends them: journal entries (gzipped, as the HTTP
// client sends them). BENCH_ENGINE_CHECKPOINTS=1 saves whole checkpoints instead, as a run with journaling turned off.
import { gzipSync } from 'node:zlib';
import { launchProgram } from '../cli/engine/program/language-host.ts';
import { startNullMonitor } from '../cli/engine/program/null-monitor.ts';
import { benchProgram, upOnTestprov } from './testprov-up.mjs';

const COUNT = Number(process.env.BENCH_ENGINE_COUNT ?? 600);
const CHECKPOINTS = process.env.BENCH_ENGINE_CHECKPOINTS === '1';
const { program, config } = benchProgram(COUNT);

async function nullRun() {
  const monitor = await startNullMonitor(program.stack, program.project);
  const started = performance.now();
  const child = launchProgram(program, { monitorAddress: monitor.address, engineAddress: monitor.address, dryRun: false, parallel: 16, config });
  const { code } = await child.exited;
  const ms = performance.now() - started;
  await monitor.stop();
  if (code !== 0 || monitor.registrations() < COUNT) throw new Error(`null-monitor run failed (exit ${code}, ${monitor.registrations()} registrations)`);
  return ms;
}

async function engineRun() {
  let saves = 0;
  let created = 0;
  const backend = {
    crypter: { encrypt: async (p) => p, decrypt: async (c) => c },
    async begin(_kind, dryRun) {
      return {
        base: undefined,
        // a real store compresses and writes each checkpoint; gzip stands in for that cost
        persister: dryRun || !CHECKPOINTS ? undefined : { save: async (c) => { saves++; gzipSync(c.text); } },
        journal: dryRun || CHECKPOINTS ? undefined : { append: async (entries) => { saves++; gzipSync(JSON.stringify({ entries })); } },
        complete: async (o) => void (created = o.summary.create ?? 0),
      };
    },
  };
  const { code, ms } = await upOnTestprov({ count: COUNT, flags: { skipPreview: true }, backend });
  if (code !== 0 || created < COUNT) throw new Error(`engine run failed (exit ${code}, ${created} created)`);
  return { ms, saves };
}

// The machine is shared, so each side runs ROUNDS times, alternating, and the fastest run of each side counts.
const ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS ?? 3);
await nullRun(); // warm the module cache so neither measured run pays for a cold disk
const baselines = [];
const engines = [];
for (let i = 0; i < ROUNDS; i++) {
  baselines.push(await nullRun());
  engines.push(await engineRun());
}
const baseline = Math.min(...baselines);
const engine = engines.reduce((a, b) => (b.ms < a.ms ? b : a));
const ratio = engine.ms / baseline;
console.log(
  `bench engine-overhead: ${ratio.toFixed(2)}x (up of ${COUNT} resources ${(engine.ms / 1000).toFixed(2)}s with ${engine.saves} ${CHECKPOINTS ? 'checkpoint' : 'journal'} saves; ` +
    `null monitor ${(baseline / 1000).toFixed(2)}s; best of ${ROUNDS}; goal <= ${COUNT >= 5000 ? 1.15 : 1.5})`,
);
