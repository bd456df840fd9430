// bench complete-large: what `complete` costs after an update saved a 40 MB state. Numerator: the
// `POST …/update/{id}/complete` that ends an update whose last plain checkpoint is a 40 MB state, through
// `stackyard serve` (local storage, a temp data folder), timed at the client. Denominator: writing those same 40 MB
// once to the same kind of storage, directly from this process (`LocalCheckpointStore.put`: gzip + one file). Both run
// in the same process tree, interleaved per round; medians of ROUNDS.
//
// Memory: serve's peak resident set, read from the kernel (`VmHWM` in /proc/<pid>/status), which is reset
// (`echo 5 > /proc/<pid>/clear_refs`) right before the measured call, so the figure is the highest RSS serve reached
// during that call, its idle footprint (Node, the bundle, the services) included. Printed for complete (the goal: <=
// 3x the state size) and, as information, for the 40 MB checkpoint save before it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createLocalStorage } from '../shared/adapters/local/index.ts';
import { call, closeClient, expectOk, startBundledServe } from './bundled-serve.mjs';
import { baseDeployment } from './journal-fixture.ts';

const STATE_MB = Number(process.env.BENCH_COMPLETE_STATE_MB ?? 40);
const ROUNDS = Number(process.env.BENCH_COMPLETE_ROUNDS ?? 3);
const ADMIN_TOKEN = `bench-${randomUUID()}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** A deployment of at least STATE_MB of JSON (the journal benches' realistic, hash-heavy resources). */
function largeState() {
  const perResource = Buffer.byteLength(JSON.stringify(baseDeployment(1000))) / 1000;
  const state = baseDeployment(Math.ceil((STATE_MB * 1024 * 1024) / perResource) + 10);
  return state;
}

/** The kernel's peak resident set of `pid` since the last reset (`VmHWM`), or its current one (`VmRSS`), in bytes. */
function peakRss(pid, field = 'VmHWM') {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]) * 1024;
}

function resetPeakRss(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const serveDir = mkdtempSync(join(tmpdir(), 'stackyard-complete-large-serve-'));
const rawDir = mkdtempSync(join(tmpdir(), 'stackyard-complete-large-raw-'));
let serve;
const raw = await createLocalStorage({ dataDir: rawDir });
try {
  const state = largeState();
  const stateBytes = Buffer.from(JSON.stringify({ version: state.version, deployment: state.deployment }));
  const resourceCount = state.deployment.resources.length;
  // Compressed once: compressing is the client's work, and the CLI does it before the request leaves.
  const patchBody = gzipSync(stateBytes);

  serve = await startBundledServe(serveDir, { STACKYARD_STORAGE: 'local', STACKYARD_ADMIN_TOKEN: ADMIN_TOKEN, STACKYARD_ACCESS_LOG: 'off' });
  const pid = serve.child.pid;
  const idleRss = peakRss(pid);
  const auth = `token ${ADMIN_TOKEN}`;
  const stack = '/api/stacks/admin/bench/dev';
  await expectOk(call(serve.url, 'POST', '/api/stacks/admin/bench', { auth, body: Buffer.from('{"stackName":"dev"}') }), 'create stack');

  const completeMs = [];
  const writeMs = [];
  const completePeak = [];
  const savePeak = [];
  const beforeComplete = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { updateID } = await expectOk(call(serve.url, 'POST', `${stack}/update`, { auth, body: Buffer.from('{"options":{"dryRun":false}}') }), 'create update');
    const started = await expectOk(call(serve.url, 'POST', `${stack}/update/${updateID}`, { auth, body: Buffer.from('{"tags":{}}') }), 'start');
    const lease = `update-token ${started.token}`;

    resetPeakRss(pid);
    await expectOk(call(serve.url, 'PATCH', `${stack}/update/${updateID}/checkpoint`, { auth: lease, body: patchBody, gzipped: true }), 'checkpoint');
    savePeak.push(peakRss(pid));

    resetPeakRss(pid);
    beforeComplete.push(peakRss(pid, 'VmRSS'));
    let t = performance.now();
    await expectOk(call(serve.url, 'POST', `${stack}/update/${updateID}/complete`, { auth: lease, body: Buffer.from('{"status":"succeeded"}') }), 'complete');
    completeMs.push(performance.now() - t);
    completePeak.push(peakRss(pid));

    t = performance.now();
    await raw.checkpoints.put({ stackId: 'bench', name: `checkpoints/${round}` }, stateBytes);
    writeMs.push(performance.now() - t);
  }
  const stacks = await expectOk(call(serve.url, 'GET', '/api/user/stacks', { auth }), 'list stacks');
  const listed = stacks.stacks?.find((s) => s.stackName === 'dev');
  if (listed?.resourceCount !== resourceCount) {
    throw new Error(`complete recorded ${listed?.resourceCount} resources, expected ${resourceCount}`);
  }

  const c = median(completeMs);
  const w = median(writeMs);
  const peak = Math.max(...completePeak);
  process.stdout.write(
    `bench complete-large: ${(c / w).toFixed(2)}x (complete ${c.toFixed(0)} ms / write-once ${w.toFixed(0)} ms of a ` +
      `${mb(stateBytes.length)} MB state, ${resourceCount} resources, median of ${ROUNDS}; goal <= 1.5)\n`,
  );
  process.stdout.write(
    `bench complete-large-memory: ${(peak / stateBytes.length).toFixed(2)}x (serve peak RSS during complete ` +
      `${mb(peak)} MB / state ${mb(stateBytes.length)} MB, VmHWM; ${mb(Math.max(...beforeComplete))} MB were resident when complete began; serve idle ${mb(idleRss)} MB, peak during the checkpoint save ${mb(Math.max(...savePeak))} MB; goal <= 3)\n`,
  );
} finally {
  closeClient();
  serve?.child.kill('SIGTERM');
  await raw.close();
  rmSync(serveDir, { recursive: true, force: true });
  rmSync(rawDir, { recursive: true, force: true });
}
