// bench lambda-bundles: every Lambda entry under functions/handlers/ bundled with the infra's esbuild settings
// (BUNDLING in infra/lib/constructs/api-functions.ts: minified ESM for node22, the SDK bundled). Two lines:
// - lambda-bundles: the largest bundle ÷ the 600 KB budget (each bundle's size is listed);
// - lambda-cold-import: for each API function, the time a fresh Node process takes to import its bundle, divided by
//   the time a fresh process takes to import the unbundled SDK clients the bundle replaces (client-dynamodb,
//   lib-dynamodb, client-s3, lib-storage, client-kms, client-lambda from node_modules); the worst function is printed.
//   Medians of ROUNDS interleaved runs; only the import is timed, not Node's own start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLING } from '../infra/lib/constructs/api-functions.ts';

const BUDGET = 600 * 1024;
const ROUNDS = Number(process.env.BENCH_BUNDLE_ROUNDS ?? 9);
const API_FUNCTIONS = ['identity', 'stacks', 'updates', 'secrets'];
const SDK_CLIENTS = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'];
const root = resolve(import.meta.dirname, '..');
const handlersDir = join(root, 'functions/handlers');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const entries = readdirSync(handlersDir)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'api-gateway.ts')
  .map((name) => name.replace(/\.ts$/, ''));
const out = mkdtempSync(join(tmpdir(), 'stackyard-bundles-'));

/** Milliseconds a fresh `node` spends importing `specifiers` (resolved from the repository), timed in that process. */
function importTime(specifiers) {
  const script =
    `const started = performance.now();` +
    `for (const s of ${JSON.stringify(specifiers)}) await import(s);` +
    `process.stdout.write(String(performance.now() - started));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, AWS_REGION: 'us-east-1', STACKYARD_TABLE: 'bench', STACKYARD_BUCKET: 'bench', STACKYARD_KMS_KEY_ID: 'bench' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`import of ${specifiers.join(', ')} failed: ${result.stderr}`);
  return Number(result.stdout);
}

try {
  const sizes = new Map();
  for (const name of entries) {
    const outfile = join(out, name, 'index.mjs');
    await build({
      absWorkingDir: root,
      entryPoints: [join(handlersDir, `${name}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLING.target,
      minify: BUNDLING.minify,
      sourcemap: BUNDLING.sourceMap,
      sourcesContent: BUNDLING.sourcesContent,
      mainFields: [...BUNDLING.mainFields],
      banner: { js: BUNDLING.banner },
      logLevel: 'error',
    });
    sizes.set(name, statSync(outfile).size);
  }
  const largest = Math.max(...sizes.values());
  const listed = [...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`).join(', ');
  console.log(`bench lambda-bundles: ${(largest / BUDGET).toFixed(2)}x (largest bundle ${(largest / 1024).toFixed(0)} KB / 600 KB budget; ${listed}; goal <= 1)`);

  const sdk = [];
  const bundles = new Map(API_FUNCTIONS.filter((name) => sizes.has(name)).map((name) => [name, []]));
  importTime(SDK_CLIENTS); // warm the disk cache for both sides
  for (let round = 0; round < ROUNDS; round++) {
    sdk.push(importTime(SDK_CLIENTS));
    for (const [name, times] of bundles) times.push(importTime([pathToFileURL(join(out, name, 'index.mjs')).href]));
  }
  const baseline = median(sdk);
  const ratios = [...bundles].map(([name, times]) => [name, median(times) / baseline, median(times)]);
  const [worst, ratio, ms] = ratios.reduce((a, b) => (b[1] > a[1] ? b : a));
  console.log(
    `bench lambda-cold-import: ${ratio.toFixed(2)}x (import of the ${worst} bundle ${ms.toFixed(0)} ms / unbundled SDK clients ` +
      `${baseline.toFixed(0)} ms; ${ratios.map(([n, r]) => `${n} ${r.toFixed(2)}x`).join(', ')}; median of ${ROUNDS}; goal <= 0.3)`,
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
