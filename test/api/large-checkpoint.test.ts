/**
 * A plain checkpoint PATCH of a large state (over the 8 MB from which the save scans it while inflating) through the
 * same `createApi` Lambda and `serve` run, on local storage: stored as the client's gzip bytes and counted for
 * `complete`, and a broken one refused with the full check's message, storing nothing.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type ApiHandler } from '../../functions/http/api.js';
import type { ApiLogger } from '../../functions/http/respond.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Storage } from '../../shared/ports/index.js';
import { largeResourceChain } from '../support/large-state.js';

const TOKEN = `sy_large-${randomUUID()}`;
const STACK = '/api/stacks/admin/big/dev';
const silent: ApiLogger = { error: () => undefined, warn: () => undefined, info: () => undefined };
const urn = (n: number) => `urn:pulumi:dev::big::t:i:R::r${n}`;
const resources = largeResourceChain(urn);
const stateOf = (list: unknown[]) => gzipSync(JSON.stringify({ version: 3, deployment: { resources: list } }), { level: 1 });

let dataDir: string;
let storage: Storage;
let api: ApiHandler;

async function call(method: string, path: string, authorization: string, body: Buffer, gzipped = false) {
  const response = await api({
    method,
    path,
    headers: {
      authorization,
      'content-type': 'application/json',
      'accept-encoding': 'gzip',
      ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
    },
    query: new URLSearchParams(),
    body,
    requestId: randomUUID(),
  });
  const text = (response.headers['content-encoding'] === 'gzip' ? gunzipSync(response.body) : response.body).toString('utf8');
  return { status: response.status, json: text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function startedUpdate(): Promise<{ updateId: string; lease: string }> {
  const created = await call('POST', `${STACK}/update`, `token ${TOKEN}`, Buffer.from('{}'));
  const updateId = created.json.updateID as string;
  const started = await call('POST', `${STACK}/update/${updateId}`, `token ${TOKEN}`, Buffer.from('{"tags":{}}'));
  return { updateId, lease: `update-token ${started.json.token as string}` };
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-large-checkpoint-'));
  storage = await createLocalStorage({ dataDir });
  const services = createServices(storage, { serviceUrl: 'http://large.invalid' });
  await services.identity.ensureAdmin('admin', TOKEN);
  api = createApi({ services, logger: silent });
  expect((await call('POST', '/api/stacks/admin/big', `token ${TOKEN}`, Buffer.from('{"stackName":"dev"}'))).status).toBe(200);
});

afterAll(async () => {
  await storage.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('a large plain checkpoint', () => {
  it('is refused with the full check message when broken, and saved and counted for complete when sound', async () => {
    const { updateId, lease } = await startedUpdate();
    const broken = stateOf([...resources.slice(0, 100), resources[0], ...resources.slice(100)]);

    const refused = await call('PATCH', `${STACK}/update/${updateId}/checkpoint`, lease, broken, true);
    const saved = await call('PATCH', `${STACK}/update/${updateId}/checkpoint`, lease, stateOf(resources), true);
    const completed = await call('POST', `${STACK}/update/${updateId}/complete`, lease, Buffer.from('{"status":"succeeded"}'));

    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/resource #101, rule duplicate-urn/);
    expect(saved.status).toBe(200);
    expect(completed.status).toBe(200);
    const listed = await call('GET', '/api/user/stacks', `token ${TOKEN}`, Buffer.alloc(0));
    expect(listed.json.stacks).toEqual([expect.objectContaining({ stackName: 'dev', resourceCount: 9000 })]);
    const exported = await call('GET', `${STACK}/export`, `token ${TOKEN}`, Buffer.alloc(0));
    expect((exported.json.deployment as { resources: unknown[] }).resources).toHaveLength(9000);
  });

  it('that inflates to no bytes is refused as a checkpoint without a body', async () => {
    const { updateId, lease } = await startedUpdate();

    const refused = await call('PATCH', `${STACK}/update/${updateId}/checkpoint`, lease, gzipSync(Buffer.alloc(0)), true);

    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/has no body/);
  });
});
