// bench stack-diff: wall time of `stackyard stack diff 1 2` on a 5,000-resource stack whose two versions differ in 3
// resources (one updated, one replaced, one removed), divided by the wall time of one `stackyard stack export
// --version 2` of the same stack; both are the bundled CLI on `login --local`, same run, medians of 7. The diff must
// print exactly those 3 resources. Goal <= 2.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COUNT = Number(process.env.BENCH_STACK_DIFF_COUNT ?? 5_000);
const ROUNDS = Number(process.env.BENCH_STACK_DIFF_ROUNDS ?? 7);
const CLI = join(process.cwd(), 'dist/cli/stackyard.mjs');
const TYPE = 'aws:s3/bucket:Bucket';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A bucket as a provider records it: a dozen inputs, the same outputs plus a few computed ones. */
function bucket(i, overrides = {}) {
  const inputs = {
    bucket: `bucket-${i}`,
    acl: 'private',
    forceDestroy: false,
    tags: { team: 'web', env: 'prod', index: String(i) },
    versioning: { enabled: true, mfaDelete: false },
    lifecycleRules: [{ id: 'expire', enabled: true, expiration: { days: 30 } }],
    ...overrides,
  };
  const id = overrides.id ?? `bucket-${i}-id`;
  return {
    urn: `urn:pulumi:dev::bench::${TYPE}::b${i}`,
    custom: true,
    id,
    type: TYPE,
    inputs,
    outputs: { ...inputs, id, arn: `arn:aws:s3:::bucket-${i}`, region: 'eu-west-1', hostedZoneId: 'Z1BKCTXD74EZPE' },
    parent: 'urn:pulumi:dev::bench::pulumi:pulumi:Stack::bench-dev',
    provider: 'urn:pulumi:dev::bench::pulumi:providers:aws::default::p1',
    dependencies: [],
  };
}

function deployment(resources) {
  const stack = { urn: 'urn:pulumi:dev::bench::pulumi:pulumi:Stack::bench-dev', custom: false, type: 'pulumi:pulumi:Stack' };
  const provider = { urn: 'urn:pulumi:dev::bench::pulumi:providers:aws::default', custom: true, id: 'p1', type: 'pulumi:providers:aws' };
  return { version: 3, deployment: { manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' }, resources: [stack, provider, ...resources] } };
}

const root = mkdtempSync(join(tmpdir(), 'stackyard-bench-diff-'));
try {
  const home = join(root, 'home');
  const project = join(root, 'bench');
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(join(project, 'Pulumi.yaml'), 'name: bench\nruntime: nodejs\n');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STACKYARD_') && !k.startsWith('PULUMI_'))), CI: 'true', HOME: home, STACKYARD_HOME: home };
  const cli = (...args) => {
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: project, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    if (result.status !== 0) throw new Error(`stackyard ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };
  const timed = (...args) => {
    const started = performance.now();
    const stdout = cli(...args);
    return { ms: performance.now() - started, stdout };
  };

  cli('login', '--local');
  cli('stack', 'init', 'dev');
  const before = Array.from({ length: COUNT }, (_, i) => bucket(i));
  const after = before.filter((_, i) => i !== 30).map((r, i) => (i === 10 ? bucket(10, { acl: 'public-read' }) : i === 20 ? bucket(20, { id: 'bucket-20-new-id' }) : r));
  for (const [name, resources] of [['v1', before], ['v2', after]]) {
    const file = join(root, `${name}.json`);
    writeFileSync(file, JSON.stringify(deployment(resources)));
    cli('stack', 'import', '--file', file);
  }

  const diffs = [];
  const exports = [];
  for (let round = 0; round < ROUNDS; round++) {
    const diff = timed('stack', 'diff', '1', '2');
    const exported = timed('stack', 'export', '--version', '2');
    const shown = diff.stdout.split('\n').filter((line) => line.includes('[urn=')).map((line) => line.trim());
    const expected = [20, 10, 30].map((i) => `[urn=urn:pulumi:dev::bench::${TYPE}::b${i}]`);
    if (JSON.stringify(shown) !== JSON.stringify(expected)) throw new Error(`stack diff printed ${JSON.stringify(shown)}, expected ${JSON.stringify(expected)}`);
    if (JSON.parse(exported.stdout).deployment.resources.length !== COUNT + 1) throw new Error('stack export returned the wrong version');
    diffs.push(diff.ms);
    exports.push(exported.ms);
  }
  const d = median(diffs);
  const e = median(exports);
  console.log(
    `bench stack-diff: ${(d / e).toFixed(2)}x (stack diff 1 2 ${d.toFixed(0)} ms / stack export --version 2 ${e.toFixed(0)} ms; ` +
      `${COUNT} resources, 3 changed and only those printed, login --local, median of ${ROUNDS}; goal <= 2)`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
