// bench plugin-resolution: what plugin resolution adds to an `up` when every plugin is already cached. The same
// small `up` (COUNT resources on the test provider, found in a $PULUMI_HOME plugin cache, the stack's state naming
// the provider and its version) runs with automatic acquisition on and off, alternating; the ratio is the fastest
// run with it over the fastest run without it. The resolution work itself (reading the program's packages and the
// state's providers, checking the cache, finding the executable) is also timed alone, averaged over many runs. The
// program's node_modules links every package of this repository (about 500), more than a typical program has.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runDeployment } from '../cli/engine/run-deployment.ts';
import { PluginAcquirer } from '../cli/plugins/acquire.ts';
import { nodeRequiredPlugins, statePlugins } from '../cli/plugins/required.ts';
import { resolvePlugin } from '../cli/plugins/resolve.ts';
import { testprovPluginDir } from '../test/support/plugin-server.ts';

const COUNT = Number(process.env.BENCH_PLUGIN_COUNT ?? 20);
const ROUNDS = Number(process.env.BENCH_PLUGIN_ROUNDS ?? 5);
const GOAL_MS = 50;
const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'stackyard-bench-plugins-'));

// A $PULUMI_HOME whose cache holds testprov v1.0.0, and a project whose node_modules declares it.
const home = join(work, 'pulumi-home');
testprovPluginDir(join(home, 'plugins', 'resource-testprov-v1.0.0'));
const programDir = join(work, 'program');
mkdirSync(join(programDir, 'node_modules', '@pulumi'), { recursive: true });
copyFileSync(join(root, 'test/fixtures/programs/bench/index.js'), join(programDir, 'index.js'));
writeFileSync(join(programDir, 'Pulumi.yaml'), 'name: bench\nruntime: nodejs\n');
for (const entry of readdirSync(join(root, 'node_modules'))) {
  if (entry.startsWith('.') || entry === '@pulumi') continue;
  symlinkSync(join(root, 'node_modules', entry), join(programDir, 'node_modules', entry));
}
for (const entry of readdirSync(join(root, 'node_modules/@pulumi'))) {
  symlinkSync(join(root, 'node_modules/@pulumi', entry), join(programDir, 'node_modules/@pulumi', entry));
}
mkdirSync(join(programDir, 'node_modules/@pulumi/testprov'));
writeFileSync(join(programDir, 'node_modules/@pulumi/testprov/package.json'), JSON.stringify({ name: '@pulumi/testprov', version: '1.0.0', pulumi: { resource: true } }));

const env = { ...process.env, PULUMI_HOME: home, PULUMI_IGNORE_AMBIENT_PLUGINS: 'true' };
const program = { rootDir: programDir, project: 'bench', stack: 'bench' };
const config = { 'bench:count': { value: String(COUNT), secret: false } };
const crypter = { encrypt: async (p) => p, decrypt: async (c) => c };

// The state of a first `up`: every later run starts from it, so the state's provider is resolved too.
let base;
{
  const first = await runDeployment({ kind: 'update', program, config, base: undefined, crypter, env, persister: { save: async (c) => void (base = JSON.parse(c.text)) } });
  if (!first.ok) throw new Error(`first up failed: ${first.errors.join('; ')}`);
}

async function up(acquirePlugins) {
  const started = performance.now();
  const r = await runDeployment({ kind: 'update', program, config, base, crypter, env, acquirePlugins, persister: { save: async () => {} } });
  const ms = performance.now() - started;
  if (!r.ok) throw new Error(`up failed: ${r.errors.join('; ')}`);
  return ms;
}

/** The resolution work alone, as runDeployment and the provider launch do it. */
async function resolution() {
  const acquirer = new PluginAcquirer({ env, projectDir: programDir });
  const specs = [...nodeRequiredPlugins(programDir), ...statePlugins(base.deployment.resources)];
  await acquirer.ensureAll(specs);
  if (!resolvePlugin({ kind: 'resource', name: 'testprov', version: '1.0.0' }, { env, markUsed: true })) throw new Error('testprov not found');
  return specs.length;
}

await up(true); // warm the module cache and the disk
const withResolution = [];
const without = [];
for (let i = 0; i < ROUNDS; i++) {
  withResolution.push(await up(true));
  without.push(await up(false));
}
const RESOLVE_RUNS = 50;
await resolution();
const t0 = performance.now();
let found = 0;
for (let i = 0; i < RESOLVE_RUNS; i++) found = await resolution();
const resolveMs = (performance.now() - t0) / RESOLVE_RUNS;
rmSync(work, { recursive: true, force: true });

const best = Math.min(...withResolution);
const baseline = Math.min(...without);
console.log(
  `bench plugin-resolution: ${(best / baseline).toFixed(3)}x (up of ${COUNT} resources with plugin resolution ${best.toFixed(0)} ms / ` +
    `without ${baseline.toFixed(0)} ms, best of ${ROUNDS}; difference ${(best - baseline).toFixed(1)} ms; resolution alone ` +
    `${resolveMs.toFixed(1)} ms (${found} plugins from ~500 packages and the state, mean of ${RESOLVE_RUNS}); goal: adds <= ${GOAL_MS} ms)`,
);
