// bench policy-overhead: time of an `up` (its preview, then the update) creating COUNT resources (1,000 by default)
// on the test provider with one policy pack (test/fixtures/policy/packs/publishable: a resource policy with config,
// asked about every resource in both phases, and a stack policy), divided by the time of the same `up` without it,
// measured alternately in the same run. The pack's cost is its start, one Remediate and one Analyze per resource in
// each phase, and AnalyzeStack at the end.
import { join, resolve } from 'node:path';
import { upOnTestprov } from './testprov-up.mjs';

const COUNT = Number(process.env.BENCH_POLICY_COUNT ?? 1000);
const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 2);
const PACK = join(resolve(import.meta.dirname, '..'), 'test/fixtures/policy/packs/publishable');

async function up(withPack) {
  let created = 0;
  let analyzed = 0;
  const backend = {
    crypter: { encrypt: async (p) => p, decrypt: async (c) => c },
    async begin() {
      return {
        base: undefined,
        recordEvents: (batch) => void (analyzed += batch.filter((e) => 'policyAnalyzeSummaryEvent' in e).length),
        complete: async (o) => void (created = o.summary.create ?? created),
      };
    },
  };
  const { code, ms } = await upOnTestprov({ count: COUNT, flags: withPack ? { policyPacks: [{ path: PACK }] } : {}, backend });
  if (code !== 0 || created < COUNT) throw new Error(`up ${withPack ? 'with' : 'without'} the pack failed (exit ${code}, ${created} created)`);
  if (withPack && analyzed < 2 * COUNT) throw new Error(`the pack analyzed ${analyzed} resources, not every one in both phases`);
  return ms;
}

// The machine is shared, so each side runs ROUNDS times, alternating, and the fastest run of each side counts.
await up(false); // warm the module cache and the provider so neither measured side pays for a cold disk
const without = [];
const withPack = [];
for (let i = 0; i < ROUNDS; i++) {
  without.push(await up(false));
  withPack.push(await up(true));
}
const base = Math.min(...without);
const packed = Math.min(...withPack);
console.log(
  `bench policy-overhead: ${(packed / base).toFixed(2)}x (up of ${COUNT} resources, preview and update, with one pack ${(packed / 1000).toFixed(2)}s; ` +
    `without ${(base / 1000).toFixed(2)}s; best of ${ROUNDS})`,
);
