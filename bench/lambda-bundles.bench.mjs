// bench lambda-bundles: every Lambda entry under functions/handlers/ bundled with the infra's esbuild settings
// (BUNDLING and LAMBDA_ALIASES in infra/lib/constructs/api-functions.ts: minified ESM for node22, the SDK bundled).
// Two lines:
// - lambda-bundles: the largest bundle ÷ the 600 KB budget (each bundle's size is listed). Before it, one line per
//   bundle from esbuild's metafile: how much of it is the AWS SDK (@aws-sdk/*, @smithy/*), our own code, and other
//   packages, and which SDK clients it carries;
// - lambda-cold-import: for each API function, the time a fresh Node process takes to import its bundle, divided by
//   the time a fresh process takes to import, unbundled from node_modules, the SDK clients that bundle carries (of
//   client-dynamodb, lib-dynamodb, client-s3, client-kms, client-lambda); the worst function is printed.
//   Medians of ROUNDS interleaved runs; only the import is timed, not Node's own start.
// - lambda-cold-import-cpu: the same imports, timed in CPU time (user + system, process.cpuUsage) instead of wall
//   time. Printed alongside, not instead: on a machine shared with other work the wall-clock ratio swings with the
//   load (the same bundles read 0.66x to 0.91x within an hour), while CPU time counts only the work the import did.
// - lambda-cold-import-floor: a lower bound for lambda-cold-import, printed alongside. For each API function, a bundle
//   built with the same settings that holds nothing but the client classes of the SDK clients that function carries
//   (no commands, no code of ours, no logger, tracer or zod), timed the same way against the same baseline. No bundle
//   of that function can import faster than this one, so a floor above 0.3 means the goal cannot be met by bundling.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildLambdaBundle, lambdaBuildOptions, lambdaEntries } from '../test/support/lambda-bundles.ts';

const BUDGET = 600 * 1024;
const ROUNDS = Number(process.env.BENCH_BUNDLE_ROUNDS ?? 9);
const API_FUNCTIONS = ['identity', 'stacks', 'updates', 'secrets'];
const SDK_CLIENTS = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'];
/** The class each SDK client package is used through: what the floor bundle keeps of that package. */
const CLIENT_CLASSES = {
  '@aws-sdk/client-dynamodb': 'DynamoDBClient',
  '@aws-sdk/lib-dynamodb': 'DynamoDBDocumentClient',
  '@aws-sdk/client-s3': 'S3Client',
  '@aws-sdk/client-kms': 'KMSClient',
  '@aws-sdk/client-lambda': 'LambdaClient',
};
const root = resolve(import.meta.dirname, '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;

/** Bytes of one bundle by origin, and the SDK clients (of SDK_CLIENTS) it carries, from esbuild's metafile. */
function composition(metafile) {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const parts = { sdk: 0, ours: 0, other: 0 };
  const clients = new Set();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    if (!pkg) parts.ours += bytesInOutput;
    else if (pkg.startsWith('@aws-sdk/') || pkg.startsWith('@smithy/')) parts.sdk += bytesInOutput;
    else parts.other += bytesInOutput;
    if (pkg && SDK_CLIENTS.includes(pkg) && bytesInOutput > 0) clients.add(pkg);
  }
  return { ...parts, clients: SDK_CLIENTS.filter((c) => clients.has(c)) };
}

const entries = lambdaEntries();
const out = mkdtempSync(join(tmpdir(), 'stackyard-bundles-'));

/** Bundles only the client classes of `clients` (see CLIENT_CLASSES), as the infra bundles: the floor bundle's file. */
async function buildFloorBundle(name, clients) {
  const file = join(out, 'floor', name, 'index.mjs');
  const imports = clients.map((pkg, i) => `import { ${CLIENT_CLASSES[pkg]} as c${i} } from '${pkg}';`).join('\n');
  await build({
    ...lambdaBuildOptions(file),
    stdin: { contents: `${imports}\nglobalThis.floorClients = [${clients.map((_, i) => `c${i}`).join(', ')}];`, resolveDir: root, loader: 'js' },
  });
  return file;
}

/**
 * Milliseconds a fresh `node` spends importing `specifiers` (resolved from the repository), timed in that process:
 * wall time, and CPU time (user + system) in `cpu`.
 */
function importTime(specifiers) {
  const script =
    `const started = performance.now(); const cpu = process.cpuUsage();` +
    `for (const s of ${JSON.stringify(specifiers)}) await import(s);` +
    `const used = process.cpuUsage(cpu);` +
    `process.stdout.write(JSON.stringify({ wall: performance.now() - started, cpu: (used.user + used.system) / 1000 }));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, AWS_REGION: 'us-east-1', STACKYARD_TABLE: 'bench', STACKYARD_BUCKET: 'bench', STACKYARD_KMS_KEY_ID: 'bench' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`import of ${specifiers.join(', ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

try {
  const sizes = new Map();
  const carried = new Map();
  for (const name of entries) {
    const { file: outfile, metafile } = await buildLambdaBundle(name, out);
    sizes.set(name, statSync(outfile).size);
    const { sdk, ours, other, clients } = composition(metafile);
    carried.set(name, clients);
    console.log(`bundle ${name}: ${kb(statSync(outfile).size)} = AWS SDK ${kb(sdk)} + ours ${kb(ours)} + other packages ${kb(other)}; clients: ${clients.map((c) => c.replace('@aws-sdk/', '')).join(', ')}`);
  }
  const largest = Math.max(...sizes.values());
  const listed = [...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`).join(', ');
  console.log(`bench lambda-bundles: ${(largest / BUDGET).toFixed(2)}x (largest bundle ${(largest / 1024).toFixed(0)} KB / 600 KB budget; ${listed}; goal <= 1)`);

  const bundles = new Map(API_FUNCTIONS.filter((name) => sizes.has(name)).map((name) => [name, { bundle: [], sdk: [], floor: [] }]));
  const floorFiles = new Map();
  for (const name of bundles.keys()) floorFiles.set(name, pathToFileURL(await buildFloorBundle(name, carried.get(name))).href);
  importTime(SDK_CLIENTS); // warm the disk cache for both sides
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, times] of bundles) {
      times.sdk.push(importTime(carried.get(name)));
      times.bundle.push(importTime([pathToFileURL(join(out, name, 'index.mjs')).href]));
      times.floor.push(importTime([floorFiles.get(name)]));
    }
  }
  for (const [id, clock, what, side, goal] of [
    ['lambda-cold-import', 'wall', 'import', 'bundle', 'goal <= 0.3'],
    ['lambda-cold-import-cpu', 'cpu', 'CPU time of the import', 'bundle', 'goal <= 0.3'],
    ['lambda-cold-import-floor', 'wall', 'import of only the SDK client classes, bundled alike,', 'floor', 'a lower bound for lambda-cold-import'],
  ]) {
    const ms = (runs) => median(runs.map((run) => run[clock]));
    const ratios = [...bundles].map(([name, times]) => [name, ms(times[side]) / ms(times.sdk), ms(times[side]), ms(times.sdk)]);
    const [worst, ratio, bundled, baseline] = ratios.reduce((a, b) => (b[1] > a[1] ? b : a));
    console.log(
      `bench ${id}: ${ratio.toFixed(2)}x (${what} of the ${worst} bundle ${bundled.toFixed(0)} ms / the unbundled SDK clients it ` +
        `carries ${baseline.toFixed(0)} ms; ${ratios.map(([n, r, b, s]) => `${n} ${r.toFixed(2)}x (${b.toFixed(0)}/${s.toFixed(0)} ms)`).join(', ')}; ` +
        `median of ${ROUNDS}; ${goal})`,
    );
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
