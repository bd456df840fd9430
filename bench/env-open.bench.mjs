// bench env-open: what opening a stack's environments costs next to reading the stack's own configuration, through
// `stackyard serve` (local storage). Numerator: opening an environment that imports 5 others, as the Pulumi CLI
// opens one before a run (`POST …/open`, then `GET …/open/{id}`): each import read with the caller's permission and
// decrypted under its own key, all merged. Denominator: a stack config read as the CLI does it over the API (`GET`
// the stack, then `batch-decrypt` its secrets). Both sides hold the same values: 5 × 4 configuration values of which
// 5 secrets. Interleaved in the same run, medians of ROUNDS each after a warm-up. The opened values are checked.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, closeClient, expectOk, startBundledServe } from './bundled-serve.mjs';

const ROUNDS = Number(process.env.BENCH_ENV_OPEN_ROUNDS ?? 40);
const IMPORTS = 5;
const ESC = '/api/esc/environments/acme';
const STACK = '/api/stacks/acme/bench/dev';
const ADMIN_TOKEN = `sy_${randomBytes(24).toString('hex')}`;
const auth = `token ${ADMIN_TOKEN}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const json = (value) => Buffer.from(JSON.stringify(value));
const secretOf = (i) => `secret-value-${i}-${'x'.repeat(24)}`;

/** Import `i`: four configuration values, one of them secret, and a variable. */
function importDefinition(i) {
  return [
    'values:',
    '  pulumiConfig:',
    `    bench:region${i}: eu-west-${i}`,
    `    bench:size${i}: ${i * 10}`,
    `    bench:tags${i}: {team: core, index: "${i}"}`,
    `    bench:password${i}:`,
    `      fn::secret: ${secretOf(i)}`,
    '  environmentVariables:',
    `    VAR_${i}: \${pulumiConfig["bench:region${i}"]}`,
    '',
  ].join('\n');
}

const root = mkdtempSync(join(tmpdir(), 'stackyard-bench-env-open-'));
let serve;
try {
  serve = await startBundledServe(join(root, 'data'), { STACKYARD_ADMIN_TOKEN: ADMIN_TOKEN });
  const { url } = serve;
  await expectOk(call(url, 'POST', '/api/orgs', { auth, body: json({ name: 'acme' }) }), 'create organization');
  for (let i = 0; i < IMPORTS; i++) {
    await expectOk(call(url, 'POST', ESC, { auth, body: json({ project: 'shared', name: `base${i}` }) }), 'create import');
    await expectOk(call(url, 'PATCH', `${ESC}/shared/base${i}`, { auth, body: Buffer.from(importDefinition(i)) }), 'save import');
  }
  const imports = Array.from({ length: IMPORTS }, (_, i) => `  - shared/base${i}`).join('\n');
  await expectOk(call(url, 'POST', ESC, { auth, body: json({ project: 'app', name: 'root' }) }), 'create root');
  await expectOk(call(url, 'PATCH', `${ESC}/app/root`, { auth, body: Buffer.from(`imports:\n${imports}\nvalues: {}\n`) }), 'save root');

  // The stack holds the same 20 values, the 5 secrets sealed under its key (Pulumi.dev.yaml's `secure:` values).
  await expectOk(call(url, 'POST', '/api/stacks/acme/bench', { auth, body: json({ stackName: 'dev' }) }), 'create stack');
  const ciphertexts = [];
  for (let i = 0; i < IMPORTS; i++) {
    const sealed = await expectOk(call(url, 'POST', `${STACK}/encrypt`, { auth, body: json({ plaintext: Buffer.from(secretOf(i)).toString('base64') }) }), 'encrypt');
    ciphertexts.push(sealed.ciphertext);
  }

  const open = async () => {
    const { id } = await expectOk(call(url, 'POST', `${ESC}/app/root/open`, { auth }), 'open');
    return expectOk(call(url, 'GET', `${ESC}/app/root/open/${id}`, { auth }), 'read opened');
  };
  const readConfig = async () => {
    await expectOk(call(url, 'GET', STACK, { auth }), 'read stack');
    return expectOk(call(url, 'POST', `${STACK}/batch-decrypt`, { auth, body: json({ ciphertexts }) }), 'batch-decrypt');
  };
  const timed = async (run) => {
    const started = performance.now();
    const result = await run();
    return { ms: performance.now() - started, result };
  };

  const opened = (await open()).properties.pulumiConfig.value;
  const decrypted = await readConfig();
  for (let i = 0; i < IMPORTS; i++) {
    const password = opened[`bench:password${i}`];
    if (password?.value !== secretOf(i) || password.secret !== true) throw new Error(`the opened environment lacks import ${i}'s secret`);
  }
  if (Object.keys(opened).length !== IMPORTS * 4) throw new Error(`the opened environment has ${Object.keys(opened).length} values, not ${IMPORTS * 4}`);
  if (Object.keys(decrypted.plaintexts).length !== IMPORTS) throw new Error('the stack read decrypted the wrong number of secrets');

  const opens = [];
  const reads = [];
  for (let round = 0; round < ROUNDS; round++) {
    opens.push((await timed(open)).ms);
    reads.push((await timed(readConfig)).ms);
  }
  const o = median(opens);
  const r = median(reads);
  console.log(`bench env-open: ${(o / r).toFixed(2)}x (open of an environment with ${IMPORTS} imports ${o.toFixed(1)} ms / stack config read ${r.toFixed(1)} ms, medians of ${ROUNDS})`);
} finally {
  closeClient();
  serve?.child.kill();
  rmSync(root, { recursive: true, force: true });
}
