/**
 * Storage outages under a running update: `stackyard serve` on DynamoDB Local and s3rver, a client saving
 * checkpoints through the CLI's own API client, while DynamoDB Local and s3rver are frozen (SIGSTOP) and killed
 * (SIGKILL, then restarted on the same port and data) in turn. Every failure the client sees must be a 503 with
 * Retry-After, the client must ride through every outage, and the stack must end with exactly the last state saved.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../cli/api-client/api-client.js';
import { createStackyardTable } from '../../shared/adapters/aws/table.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CREDENTIALS, REGION, standInClients } from '../support/aws-stand-ins.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startKmsServer, type KmsStandIn } from '../support/kms-server.js';
import { startS3rver, type S3Local } from '../support/s3rver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server process behind a guarded child (`sh` runs it as its only child). */
function serverPid(guard: { pid?: number }): number {
  const children = readFileSync(`/proc/${guard.pid}/task/${guard.pid}/children`, 'utf8').trim().split(/\s+/);
  return Number(children[0]);
}

const dirs: string[] = [];
let dynamodb: DynamoDbLocal;
let s3: S3Local;
let kms: KmsStandIn;
let serve: ServeProcess;
let ddbPort: number;
let s3Port: number;
const ddbDir = mkdtempSync(join(tmpdir(), 'stackyard-outage-ddb-'));
const s3Dir = mkdtempSync(join(tmpdir(), 'stackyard-outage-s3-'));
dirs.push(ddbDir, s3Dir);

beforeAll(async () => {
  [dynamodb, s3, kms] = await Promise.all([startDynamoDbLocal(30_000, { dbPath: ddbDir }), startS3rver({ directory: s3Dir }), startKmsServer()]);
  ddbPort = Number(new URL(dynamodb.endpoint).port);
  s3Port = Number(new URL(s3.endpoint).port);
  const { ddbClient, s3Client } = standInClients(dynamodb.endpoint, s3.endpoint);
  await createStackyardTable(ddbClient, 'outage');
  await s3Client.send(new CreateBucketCommand({ Bucket: 'outage' }));
  ddbClient.destroy();
  s3Client.destroy();
  serve = await startServe({
    storage: 'aws',
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      STACKYARD_TABLE: 'outage',
      STACKYARD_BUCKET: 'outage',
      STACKYARD_KMS_KEY_ID: kms.keyId,
      STACKYARD_ACCESS_LOG: 'off',
    },
  });
}, 90_000);

afterAll(async () => {
  await serve?.stop();
  await Promise.allSettled([dynamodb?.stop(), s3?.stop(), kms?.stop()]);
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

const STACK = '/api/stacks/admin/outage/dev';
const urn = (name: string) => `urn:pulumi:dev::outage::t:i:R::${name}`;
const root = { urn: 'urn:pulumi:dev::outage::pulumi:pulumi:Stack::outage-dev', custom: false, type: 'pulumi:pulumi:Stack' };
const checkpoint = (n: number) => ({
  version: 3,
  deployment: {
    manifest: { time: new Date(0).toISOString(), magic: '', version: 'v3.248.0' },
    resources: [root, ...Array.from({ length: n }, (_, i) => ({ urn: urn(`r${i}`), custom: true, id: `id-${i}`, type: 't:i:R', parent: root.urn }))],
  },
});

describe('storage outages while a client saves checkpoints', () => {
  it('answers only 503 with Retry-After, the client rides through, and no state is torn or lost', async () => {
    const observed: { status: number; retryAfter: string | null; path: string }[] = [];
    const notices: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      observed.push({ status: response.status, retryAfter: response.headers.get('retry-after'), path: new URL(String(input)).pathname });
      return response;
    };
    const client = new ApiClient(serve.url, serve.adminToken, { fetch: recordingFetch, notify: (m) => notices.push(m), retryBudgetMs: 60_000 });
    await client.request({ method: 'POST', path: '/api/stacks/admin/outage', body: { stackName: 'dev' } });
    const { updateID } = await client.request<{ updateID: string }>({ method: 'POST', path: `${STACK}/update`, body: {} });
    const { token } = await client.request<{ token: string }>({ method: 'POST', path: `${STACK}/update/${updateID}`, body: {} });

    let chaosDone = false;
    const chaos = (async () => {
      const freeze = async (guard: { pid?: number }) => {
        const pid = serverPid(guard);
        process.kill(pid, 'SIGSTOP');
        await sleep(4_000);
        process.kill(pid, 'SIGCONT');
      };
      await sleep(500);
      await freeze(dynamodb.child);
      await sleep(1_000);
      process.kill(serverPid(dynamodb.child), 'SIGKILL');
      await dynamodb.stop();
      await sleep(2_000);
      dynamodb = await startDynamoDbLocal(30_000, { port: ddbPort, dbPath: ddbDir });
      await sleep(1_000);
      await freeze(s3.child);
      await sleep(1_000);
      process.kill(serverPid(s3.child), 'SIGKILL');
      await s3.stop();
      await sleep(2_000);
      s3 = await startS3rver({ port: s3Port, directory: s3Dir });
      await sleep(1_000);
      chaosDone = true;
    })();

    let saved = 0;
    while (!chaosDone || saved < 5) {
      saved += 1;
      await client.request({
        method: 'PATCH',
        path: `${STACK}/update/${updateID}/checkpoint`,
        body: { isInvalid: false, ...checkpoint(saved) },
        gzip: true,
        updateToken: token,
        idempotent: true,
        operation: 'save checkpoint',
      });
      await sleep(100);
    }
    await chaos;
    await client.request({ method: 'POST', path: `${STACK}/update/${updateID}/complete`, body: { status: 'succeeded' }, updateToken: token, idempotent: true });
    const exported = await client.request<{ deployment: { resources: unknown[] } }>({ method: 'GET', path: `${STACK}/export` });

    const failures = observed.filter((o) => o.status >= 400);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expect(failure).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    expect(notices.some((n) => /answered 503 .*retrying save checkpoint in/.test(n))).toBe(true);
    expect(exported.deployment.resources).toEqual(checkpoint(saved).deployment.resources);
    const history = await client.request<{ updates: { version: number; result: string }[] }>({ method: 'GET', path: `${STACK}/updates` });
    expect(history.updates[0]).toMatchObject({ version: 1, result: 'succeeded' });
  }, 180_000);
});
