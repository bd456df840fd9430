/**
 * Fuzzing the whole API in process, on both storage modes: requests generated from the route table (every route, with
 * good and bad path parameters, credentials, encodings and bodies) go through the same `createApi` that Lambda and
 * `serve` run. No request may be answered 5xx or make the handler throw, and requests that are refused must change
 * nothing: storage is snapshotted before and after every batch whose requests were all refused, and compared. The
 * audit log is part of the comparison, except the entries that record a refusal itself (failed sign-ins, denied
 * authorizations) and the refusal tallies: recording those is its job (docs/security.md).
 * `POST /api/oauth/token` is unauthenticated by design and form-encoded: half its requests carry a token-exchange form
 * built from the generated names (unsigned ID tokens, odd audiences, scopes and expirations), the rest the generated
 * bodies; none may issue a token.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, type ApiHandler } from '../../functions/http/api.js';
import type { ApiLogger } from '../../functions/http/respond.js';
import { API_ROUTES } from '../../functions/http/routes/index.js';
import { createAwsClients, createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import { REFUSAL_EVENTS } from '../../shared/core/audit/audit.js';
import type { Storage } from '../../shared/ports/index.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';

const REQUESTS_PER_MODE = 10_000;
const BATCH = 50;
const TOKEN = `sy_fuzz-${randomUUID()}`;
const silent: ApiLogger = { error: () => undefined, warn: () => undefined, info: () => undefined };

/**
 * A token's last use is written by any authenticated call (at most once a minute), refused or not: it records that
 * the token was used, not a change the request made, so it is left out of the comparison.
 */
function withoutLastUse(json: string): string {
  const { lastUsedAt: _lastUse, ...kept } = JSON.parse(json) as Record<string, unknown>;
  return JSON.stringify(kept);
}

interface Mode {
  storage: Storage;
  snapshot(): Promise<string>;
  cleanup(): Promise<void>;
}

async function localMode(): Promise<Mode> {
  const dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-fuzz-'));
  const storage = await createLocalStorage({ dataDir });
  return {
    storage,
    async snapshot() {
      const files: string[] = [];
      for (const entry of await fs.readdir(dataDir, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        if (path.startsWith(join(dataDir, 'tmp')) || path.startsWith(join(dataDir, 'locks'))) continue;
        const body = await fs.readFile(path);
        if (path.startsWith(join(dataDir, 'audit', '')) && REFUSAL_EVENTS.includes((JSON.parse(body.toString('utf8')) as { event: string }).event)) continue;
        if (path.startsWith(join(dataDir, 'audit-tallies', ''))) continue;
        const kept = path.startsWith(join(dataDir, 'identity', 'tokens', '')) ? withoutLastUse(body.toString('utf8')) : body.toString('base64');
        files.push(`${path.slice(dataDir.length)}:${kept}`);
      }
      return files.sort().join('\n');
    },
    async cleanup() {
      await storage.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function awsMode(): Promise<Mode> {
  const standIns: AwsStandIns = await startAwsStandIns();
  const env = { ...process.env, ...standIns.env };
  const saved = { ...process.env };
  Object.assign(process.env, standIns.env);
  const clients = createAwsClients(env);
  const storage = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, clients });
  const credentials = { accessKeyId: standIns.env.AWS_ACCESS_KEY_ID!, secretAccessKey: standIns.env.AWS_SECRET_ACCESS_KEY! };
  const ddb = new DynamoDBClient({ endpoint: standIns.dynamodb.endpoint, region: 'us-east-1', credentials });
  const s3 = new S3Client({
    endpoint: standIns.s3.endpoint,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    storage,
    async snapshot() {
      const items: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await ddb.send(new ScanCommand({ TableName: standIns.table, ExclusiveStartKey: start as never }));
        for (const item of page.Items ?? []) {
          if (item.pk?.S?.startsWith('AUDIT#') && REFUSAL_EVENTS.includes(item.event?.S ?? '')) continue;
          if (item.pk?.S?.startsWith('AUDITTALLY#')) continue;
          const { lastUsedAt: _lastUse, ...kept } = item;
          items.push(JSON.stringify(Object.entries(kept).sort()));
        }
        start = page.LastEvaluatedKey;
      } while (start);
      const objects: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: standIns.bucket, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          const body = await s3.send(new GetObjectCommand({ Bucket: standIns.bucket, Key: object.Key! }));
          objects.push(`${object.Key}:${Buffer.from(await body.Body!.transformToByteArray()).toString('base64')}`);
        }
        token = page.NextContinuationToken;
      } while (token);
      return [...items.sort(), ...objects.sort()].join('\n');
    },
    async cleanup() {
      ddb.destroy();
      s3.destroy();
      clients.destroy();
      await standIns.stop();
      for (const key of Object.keys(standIns.env)) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    },
  };
}

const NAMES = ['admin', 'fuzz', 'dev', 'acme', 'web', 'x', '', '..', '%2e%2e', 'a'.repeat(300), 'ü', '%00', '{orgName}', '-', 'Dev'];
const nameArb = fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)));
const authArb = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constant(`token ${TOKEN}`),
  fc.constant('token sy_not-a-real-token'),
  fc.constant('update-token not-a-lease'),
  fc.constant('Bearer x'),
  fc.string({ maxLength: 20 }),
);
const jsonArb = fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)));
const bodyArb = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  jsonArb,
  fc.constant(Buffer.from('{"version":3,"deployment":{"resources":[{"urn":"urn:pulumi:dev::fuzz::t::a","type":"t"},{"urn":"urn:pulumi:dev::fuzz::t::a","type":"t"}]}}')),
  fc.constant(Buffer.from('{"stackName":"dev","tags":{"a":"b"}}')),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.from('{"unterminated":')),
);
const requestArb = fc.record({
  names: fc.array(nameArb, { minLength: 8, maxLength: 8 }),
  auth: authArb,
  body: bodyArb,
  gzip: fc.oneof(fc.constant<'none' | 'valid' | 'broken'>('none'), fc.constant<'valid'>('valid'), fc.constant<'broken'>('broken')),
  query: fc.oneof(fc.constant(''), fc.constant('page=0&pageSize=-1'), fc.constant('continuationToken=%ff'), fc.string({ maxLength: 10 })),
});

/** A token exchange as `pulumi login --oidc-token` posts it, with generated values in every field. */
function exchangeForm(names: string[]): Buffer {
  const decoded = names.map((name) => {
    try {
      return decodeURIComponent(name);
    } catch {
      return name;
    }
  });
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return Buffer.from(
    new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: `urn:pulumi:org:${decoded[0]}`,
      // Mostly well-formed kinds, scopes and expirations, so that requests also reach the trust and token checks.
      ...[
        { requested_token_type: 'urn:pulumi:token-type:access_token:organization', scope: '' },
        { requested_token_type: 'urn:pulumi:token-type:access_token:team', scope: `team:${decoded[2]}` },
        { requested_token_type: 'urn:pulumi:token-type:access_token:personal', scope: `user:${decoded[2]}` },
        { requested_token_type: decoded[1]!, scope: decoded[2]! },
      ][decoded[1]!.length % 4],
      subject_token: `${segment({ alg: decoded[3], kid: decoded[4] })}.${segment({ iss: `https://${decoded[5]}`, sub: decoded[6], aud: decoded[0] })}.${decoded[7]}`,
      expiration: decoded[7]!.length % 3 === 0 ? decoded[7]! : String(60 * (decoded[7]!.length + 1)),
    }).toString(),
  );
}

function pathOf(template: string, names: string[]): string {
  let i = 0;
  return template.replace(/\{[^}]+\}/g, () => names[i++ % names.length] ?? 'x');
}

describe.each([
  ['local', localMode],
  ['aws', awsMode],
])('fuzzing every route (%s storage)', (_name, makeMode) => {
  let mode: Mode | undefined;
  afterAll(async () => mode?.cleanup());

  it(`answers ${REQUESTS_PER_MODE} generated requests without a 5xx, and refused ones change nothing`, async () => {
    mode = await makeMode();
    const services = createServices(mode.storage, { serviceUrl: 'http://fuzz.invalid' });
    await services.identity.ensureAdmin('admin', TOKEN);
    // A trust policy, so exchanges for `admin` go through the ID token checks (its issuer is never one generated).
    await services.oidc.createPolicy(await services.identity.authenticate(TOKEN), 'admin', { issuer: 'https://fuzz.invalid', claims: { sub: 'repo:*' }, tokenKind: 'organization' });
    const api: ApiHandler = createApi({ services, logger: silent });
    const samples = fc.sample(requestArb, { numRuns: REQUESTS_PER_MODE, seed: 16 });
    const byRoute = new Map<string, number>();
    const fiveHundreds: string[] = [];
    let comparedBatches = 0;
    const exchangeStatuses = new Set<number>();
    let refused = 0;

    for (let start = 0; start < samples.length; start += BATCH) {
      const before = await mode.snapshot();
      const batch = samples.slice(start, start + BATCH).map((sample, offset) => {
        const route = API_ROUTES[(start + offset) % API_ROUTES.length]!;
        const exchange = route.path === '/api/oauth/token';
        const plain = exchange && sample.gzip === 'none' ? exchangeForm(sample.names) : sample.body;
        const body = sample.gzip === 'valid' ? gzipSync(plain) : sample.gzip === 'broken' ? Buffer.from('not gzip') : plain;
        return {
          route,
          request: {
            method: route.method,
            path: pathOf(route.path, sample.names),
            headers: {
              'content-type': exchange ? 'application/x-www-form-urlencoded' : 'application/json',
              ...(sample.auth !== undefined ? { authorization: sample.auth } : {}),
              ...(sample.gzip !== 'none' ? { 'content-encoding': 'gzip' } : {}),
            },
            query: new URLSearchParams(sample.query),
            body,
            requestId: randomUUID(),
          },
        };
      });
      const answers = await Promise.all(batch.map(({ request }) => api(request)));
      answers.forEach((answer, i) => {
        const key = `${batch[i]!.route.method} ${batch[i]!.route.path}`;
        byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
        if (key === 'POST /api/oauth/token') exchangeStatuses.add(answer.status);
        if (answer.status >= 500) fiveHundreds.push(`${key} → ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`);
      });
      const allRefused = answers.every((answer) => answer.status >= 400);
      refused += answers.filter((answer) => answer.status >= 400).length;
      if (allRefused) {
        expect(await mode.snapshot()).toBe(before);
        comparedBatches += 1;
      }
    }

    // The snapshot sees a change when there is one (else the comparisons above would prove nothing).
    const settled = await mode.snapshot();
    await services.stacks.create(await services.identity.authenticate(TOKEN), { org: 'admin', project: 'fuzz', stack: `probe${Date.now()}` });
    expect(await mode.snapshot()).not.toBe(settled);
    expect(fiveHundreds).toEqual([]);
    expect([...byRoute.keys()].sort()).toEqual(API_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    expect(refused).toBeGreaterThan(REQUESTS_PER_MODE / 2);
    // The exchange forms got past the form checks to the trust check (401), and malformed ones were refused (400).
    expect([...exchangeStatuses].sort()).toEqual([400, 401]);
    expect(comparedBatches).toBeGreaterThan(samples.length / BATCH / 4);
  }, 240_000);
});
