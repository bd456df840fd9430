// bench lease-contention: 50 clients start an update on one stack at the same moment (one wins, 49 get the 409
// naming the holder). Numerator: the p99 of those 50 start latencies, pooled over ROUNDS rounds. Denominator: the
// p50 of an uncontended start (one client, the stack free), measured in the same run against the same server. Both
// go through `stackyard serve` (the bundle, as users run it) over keep-alive HTTP, once on local storage and once on
// the AWS adapters against DynamoDB Local, s3rver and the KMS stand-in. Each storage prints its own line.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { startAwsStandIns } from '../test/support/aws-stand-ins.ts';
import { startServe } from '../test/api/serve-process.ts';

const CLIENTS = 50;
const ROUNDS = Number(process.env.BENCH_LEASE_ROUNDS ?? 6);
const SOLO = Number(process.env.BENCH_LEASE_SOLO ?? 40);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

/** A minimal client with the Pulumi CLI's headers; one keep-alive socket per concurrent client. */
function client(baseUrl) {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + 4 });
  const call = (method, path, auth, body) => {
    const payload = Buffer.from(JSON.stringify(body ?? {}));
    const headers = {
      accept: 'application/vnd.pulumi+8',
      'content-type': 'application/json',
      'user-agent': 'pulumi-cli/1 (v3.248.0; linux)',
      authorization: auth,
      'content-length': String(payload.length),
    };
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, json: text ? JSON.parse(text) : undefined });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
  return { call, close: () => agent.destroy() };
}

function expectStatus(response, status, what) {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.json)}`);
  return response.json;
}

async function measure(storage, env) {
  const serve = await startServe({ storage, env });
  const { call, close } = client(serve.url);
  const admin = `token ${serve.adminToken}`;
  const stackName = `s${randomUUID().slice(0, 8)}`;
  const stack = `/api/stacks/admin/bench/${stackName}`;
  try {
    expectStatus(await call('POST', '/api/stacks/admin/bench', admin, { stackName }), 200, 'create stack');
    const createUpdates = (n) =>
      Promise.all(
        Array.from({ length: n }, async () => expectStatus(await call('POST', `${stack}/update`, admin, { options: { dryRun: false } }), 200, 'create update').updateID),
      );
    const timedStart = async (updateId) => {
      const started = performance.now();
      const response = await call('POST', `${stack}/update/${updateId}`, admin, { tags: {} });
      return { ms: performance.now() - started, response, updateId };
    };
    const finish = async (winner) => {
      const lease = `update-token ${winner.response.json.token}`;
      expectStatus(await call('POST', `${stack}/update/${winner.updateId}/complete`, lease, { status: 'succeeded' }), 200, 'complete');
    };

    await createUpdates(CLIENTS); // opens the keep-alive sockets, so no measured request pays for a connect
    const solo = [];
    for (let i = 0; i < SOLO + 3; i++) {
      const [id] = await createUpdates(1);
      const run = await timedStart(id);
      expectStatus(run.response, 200, 'uncontended start');
      await finish(run);
      if (i >= 3) solo.push(run.ms);
    }

    const contended = [];
    const refusals = [];
    const wins = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await createUpdates(CLIENTS);
      const runs = await Promise.all(ids.map(timedStart));
      const winners = runs.filter((r) => r.response.status === 200);
      const refused = runs.filter((r) => r.response.status === 409);
      if (winners.length !== 1 || refused.length !== CLIENTS - 1) {
        throw new Error(`round ${round}: ${winners.length} winners, ${refused.length} refusals, statuses ${runs.map((r) => r.response.status)}`);
      }
      contended.push(...runs.map((r) => r.ms));
      refusals.push(...refused.map((r) => r.ms));
      wins.push(winners[0].ms);
      await finish(winners[0]);
    }
    const p50 = quantile(solo, 0.5);
    const p99 = quantile(contended, 0.99);
    const p50c = quantile(contended, 0.5);
    console.log(
      `bench lease-contention-${storage}: ${(p99 / p50).toFixed(2)}x (p99 of ${CLIENTS} concurrent starts ${p99.toFixed(1)} ms ` +
        `[p50 ${p50c.toFixed(1)} ms; refusals p99 ${quantile(refusals, 0.99).toFixed(1)} ms; winners p50 ${quantile(wins, 0.5).toFixed(1)} ms], ` +
        `${ROUNDS} rounds / uncontended start p50 ${p50.toFixed(1)} ms; ${storage} storage via serve; goal <= 3)`,
    );
  } finally {
    close();
    await serve.stop();
  }
}

const only = process.env.BENCH_LEASE_STORAGE;
if (!only || only === 'local') await measure('local', {});
if (!only || only === 'aws') {
  const standIns = await startAwsStandIns();
  try {
    await measure('aws', standIns.env);
  } finally {
    await standIns.stop();
  }
}
