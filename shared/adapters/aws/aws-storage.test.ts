import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../../../test/support/aws-stand-ins.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  LeaseHeldError,
  NotFoundError,
  TooLargeError,
  UnavailableError,
} from '../../core/errors.js';
import type { Storage } from '../../ports/index.js';
import { createAwsStorage, TTL_ATTRIBUTE } from './index.js';
import { S3CheckpointStore } from './s3-checkpoint-store.js';

let standIns: AwsStandIns;
let restoreEnv: () => void;
let storage: Storage;
let clock: number;
let ddb: DynamoDBClient;
let s3: S3Client;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  ddb = new DynamoDBClient({ endpoint: standIns.dynamodb.endpoint, region: 'us-east-1', credentials });
  s3 = new S3Client({
    endpoint: standIns.s3.endpoint,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});

beforeEach(() => {
  clock = Date.now();
  storage = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, now: () => clock });
  return () => storage.close();
});

afterAll(async () => {
  ddb?.destroy();
  s3?.destroy();
  restoreEnv?.();
  await standIns?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('lease store', () => {
  it('reports the holder from the failed write and stores only hashes with a TTL', async () => {
    const stackId = randomUUID();
    const grant = await storage.leases.acquire({ stackId, updateId: 'u1', holder: 'alice', durationMs: 5000 });
    const refused = await rejection(storage.leases.acquire({ stackId, updateId: 'u2', holder: 'bob', durationMs: 5000 }));
    expect(refused).toBeInstanceOf(LeaseHeldError);
    expect((refused as LeaseHeldError).lease).toEqual({ updateId: 'u1', holder: 'alice', startedAt: clock, expiresAt: clock + 5000 });

    const { Item } = await ddb.send(
      new GetItemCommand({ TableName: standIns.table, Key: { pk: { S: `STACK#${stackId}` }, sk: { S: 'LEASE' } } }),
    );
    expect(JSON.stringify(Item)).not.toContain(grant.token);
    expect(Item?.tokenHash.S).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(Item?.ttl.N)).toBeGreaterThanOrEqual(Math.ceil((clock + 5000) / 1000));
  });

  it('keeps a renewed token and kills it at expiry, release and revoke', async () => {
    const stackId = randomUUID();
    const grant = await storage.leases.acquire({ stackId, updateId: 'u1', holder: 'alice', durationMs: 1000 });
    const ref = { stackId, updateId: 'u1', token: grant.token };
    clock += 900;
    expect(await storage.leases.renew(ref, 1000)).toEqual({ token: grant.token, expiresAt: clock + 1000 });
    clock += 900;
    await storage.leases.validate(ref);
    clock += 1001;
    expect(await rejection(storage.leases.validate(ref))).toBeInstanceOf(ForbiddenError);
    expect(await storage.leases.current(stackId)).toBeUndefined();

    const next = await storage.leases.acquire({ stackId, updateId: 'u2', holder: 'bob', durationMs: 1000 });
    expect(await rejection(storage.leases.renew(ref, 1000))).toBeInstanceOf(ForbiddenError);
    await storage.leases.revoke(stackId, 'u2');
    expect(await rejection(storage.leases.release({ stackId, updateId: 'u2', token: next.token }))).toBeInstanceOf(
      ForbiddenError,
    );
  });

  it('gives dry runs their own tokens without taking the lease', async () => {
    const stackId = randomUUID();
    const dry = await storage.leases.issue({ stackId, updateId: 'p1', holder: 'alice', durationMs: 1000 });
    await storage.leases.acquire({ stackId, updateId: 'u1', holder: 'bob', durationMs: 1000 });
    await storage.leases.validate({ stackId, updateId: 'p1', token: dry.token });
    await storage.leases.release({ stackId, updateId: 'p1', token: dry.token });
    expect(await rejection(storage.leases.validate({ stackId, updateId: 'p1', token: dry.token }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect((await storage.leases.current(stackId))?.updateId).toBe('u1');
  });
});

describe('checkpoint store', () => {
  it('writes gzip under the versioned layout and refuses overwrites', async () => {
    const stackId = randomUUID();
    const body = Buffer.from(JSON.stringify({ version: 3, deployment: { resources: [] } }));
    await storage.checkpoints.put({ stackId, name: 'checkpoints/1.json' }, body);
    const raw = await s3.send(new GetObjectCommand({ Bucket: standIns.bucket, Key: `v1/stacks/${stackId}/checkpoints/1.json` }));
    expect(gunzipSync(Buffer.from(await raw.Body!.transformToByteArray()))).toEqual(body);

    const again = await rejection(storage.checkpoints.put({ stackId, name: 'checkpoints/1.json' }, Buffer.from('other')));
    expect(again).toBeInstanceOf(ConflictError);
    expect(Buffer.from(await storage.checkpoints.get({ stackId, name: 'checkpoints/1.json' }))).toEqual(body);
  });

  it('writes a 50 MB object in one conditional PutObject and reads it back', async () => {
    const stackId = randomUUID();
    const body = randomBytes(50 * 1024 * 1024);
    const sent: string[] = [];
    s3.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(context.commandName!);
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    try {
      await new S3CheckpointStore(s3, standIns.bucket).put({ stackId, name: 'big' }, body);
    } finally {
      s3.middlewareStack.remove('recordCommands');
    }
    expect(sent).toEqual(['PutObjectCommand']);
    expect(Buffer.from(await storage.checkpoints.get({ stackId, name: 'big' })).equals(body)).toBe(true);
    expect(await rejection(storage.checkpoints.put({ stackId, name: 'big' }, body))).toBeInstanceOf(ConflictError);
    expect(await rejection(storage.checkpoints.put({ stackId, name: 'huge' }, Buffer.alloc(50 * 1024 * 1024 + 1)))).toBeInstanceOf(
      TooLargeError,
    );
    expect(await storage.checkpoints.list(stackId, '')).toEqual(['big']);
  });

  it('lists more than one page by prefix', async () => {
    const stackId = randomUUID();
    const names = Array.from({ length: 1005 }, (_, i) => `events/${String(i).padStart(5, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((name) => storage.checkpoints.put({ stackId, name }, Buffer.from(name))));
    }
    await storage.checkpoints.put({ stackId, name: 'other/x' }, Buffer.from('x'));
    expect(await storage.checkpoints.list(stackId, 'events/')).toEqual(names);
  });
});

describe('key service', () => {
  it('binds data keys to their context', async () => {
    const context = { stackId: randomUUID() };
    const key = await storage.keys.generateDataKey(context);
    expect(key.plaintext).toHaveLength(32);
    expect(Buffer.from(await storage.keys.decryptDataKey(key.ciphertext, context))).toEqual(Buffer.from(key.plaintext));
    expect(await rejection(storage.keys.decryptDataKey(key.ciphertext, { stackId: randomUUID() }))).toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('reports an unknown key or an unreachable KMS as unavailable', async () => {
    const unknown = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: 'alias/missing' });
    // The SDK resolves endpoints per request, so the bad endpoint must stay in place until the call is made.
    const restore = applyEnv({ AWS_ENDPOINT_URL_KMS: 'http://127.0.0.1:9' });
    const unreachable = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId });
    try {
      expect(await rejection(unknown.keys.generateDataKey({ stackId: 'x' }))).toBeInstanceOf(UnavailableError);
      expect(await rejection(unreachable.keys.generateDataKey({ stackId: 'x' }))).toBeInstanceOf(UnavailableError);
    } finally {
      restore();
      await unknown.close();
      await unreachable.close();
    }
  });
});

describe('stack store', () => {
  const org = `org-${randomUUID().slice(0, 8)}`;

  it('pages with opaque tokens that are validated', async () => {
    for (const stack of ['a', 'b', 'c', 'd', 'e']) {
      await storage.stacks.create({ id: randomUUID(), org, project: 'p', stack, tags: { env: stack < 'c' ? 'dev' : 'prod' }, createdAt: clock });
    }
    const first = await storage.stacks.list({ org, limit: 2 });
    const second = await storage.stacks.list({ org, limit: 2, continuationToken: first.continuationToken });
    const third = await storage.stacks.list({ org, limit: 2, continuationToken: second.continuationToken });
    expect([first, second, third].flatMap((page) => page.stacks.map((s) => s.stack))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(third.continuationToken).toBeUndefined();
    const prod = await storage.stacks.list({ org, tagName: 'env', tagValue: 'prod', limit: 3 });
    expect(prod.stacks.map((s) => s.stack)).toEqual(['c', 'd', 'e']);
    expect(prod.continuationToken).toBeUndefined();

    expect(await rejection(storage.stacks.list({ org, continuationToken: 'garbage' }))).toBeInstanceOf(InvalidInputError);
    expect(
      await rejection(storage.stacks.list({ org, project: 'p', limit: 2, continuationToken: first.continuationToken })),
    ).toBeInstanceOf(InvalidInputError);
  });

  it('renames atomically and keeps the id', async () => {
    const id = randomUUID();
    const created = await storage.stacks.create({ id, org, project: 'r', stack: 'one', tags: {}, createdAt: clock });
    await storage.stacks.create({ id: randomUUID(), org, project: 'r', stack: 'taken', tags: {}, createdAt: clock });
    expect(await rejection(storage.stacks.rename(id, created.revision, { org, project: 'r', stack: 'taken' }))).toBeInstanceOf(
      ConflictError,
    );
    expect((await storage.stacks.getById(id)).stack).toBe('one');
    const renamed = await storage.stacks.rename(id, created.revision, { org, project: 'r', stack: 'two' }, { version: 1 });
    expect(renamed).toMatchObject({ id, stack: 'two', version: 1, revision: created.revision + 1 });
    expect(await rejection(storage.stacks.get({ org, project: 'r', stack: 'one' }))).toBeInstanceOf(NotFoundError);
    expect((await storage.stacks.get({ org, project: 'r', stack: 'two' })).id).toBe(id);
  });
});

describe('update store', () => {
  const newUpdate = (stackId: string, id: string, dryRun = false) => ({
    id,
    stackId,
    kind: 'update' as const,
    dryRun,
    status: 'not-started' as const,
    requestedBy: 'alice',
    createdAt: clock,
    environment: {},
    config: { 'aws:region': 'us-east-1' },
  });

  it('creates once, updates at the expected revision and pages history newest first', async () => {
    const stackId = randomUUID();
    const created = await storage.updates.create(newUpdate(stackId, 'u1'));
    expect(created).toMatchObject({ checkpointCount: 0 });
    expect(await rejection(storage.updates.create(newUpdate(stackId, 'u1')))).toBeInstanceOf(ConflictError);
    const started = await storage.updates.update(stackId, 'u1', created.revision, { status: 'in-progress', startedAt: clock });
    expect(started).toMatchObject({ status: 'in-progress', revision: created.revision + 1 });
    expect(await rejection(storage.updates.update(stackId, 'u1', created.revision, { status: 'failed' }))).toBeInstanceOf(
      ConflictError,
    );
    expect(await rejection(storage.updates.update(stackId, 'nope', 1, { status: 'failed' }))).toBeInstanceOf(NotFoundError);

    for (let version = 1; version <= 5; version++) {
      await storage.updates.recordHistory({ ...started, id: `u${version}`, version, status: 'succeeded' });
    }
    await storage.updates.recordHistory({ ...started, id: 'duplicate', version: 3, status: 'failed' });
    const page1 = await storage.updates.listHistory(stackId, 1, 2);
    const page3 = await storage.updates.listHistory(stackId, 3, 2);
    expect(page1.updates.map((u) => u.version)).toEqual([5, 4]);
    expect(page3.updates.map((u) => u.id)).toEqual(['u1']);
    expect((await storage.updates.listHistory(stackId, 2, 2)).updates.map((u) => u.id)).toEqual(['u3', 'u2']);

    await storage.updates.deleteAll(stackId);
    expect(await rejection(storage.updates.get(stackId, 'u1'))).toBeInstanceOf(NotFoundError);
    expect((await storage.updates.listHistory(stackId, 1, 10)).updates).toEqual([]);
  });
});

describe('identity store', () => {
  it('keeps users, orgs, memberships and hashed tokens', async () => {
    const login = `u${randomUUID().slice(0, 8)}`;
    const user = { login, name: 'Alice', admin: false, createdAt: clock };
    await storage.identity.createUser(user);
    expect(await rejection(storage.identity.createUser(user))).toBeInstanceOf(ConflictError);
    expect(await storage.identity.getUser(login)).toEqual(user);
    await storage.identity.putUser({ ...user, admin: true });
    expect((await storage.identity.getUser(login)).admin).toBe(true);

    await storage.identity.addMember({ org: 'zeta-org', login, role: 'member' });
    await storage.identity.addMember({ org: 'alpha-org', login, role: 'admin' });
    expect((await storage.identity.listMemberships(login)).map((m) => m.org)).toEqual(['alpha-org', 'zeta-org']);

    const token = { id: 't1', tokenHash: 'a'.repeat(64), login, description: 'ci', createdAt: clock };
    await storage.identity.putToken(token);
    expect(await storage.identity.findToken(token.tokenHash)).toEqual(token);
    expect(await storage.identity.listTokens(login)).toEqual([token]);
    await storage.identity.revokeToken(login, 't1');
    expect(await storage.identity.findToken(token.tokenHash)).toBeUndefined();
    expect(await rejection(storage.identity.revokeToken(login, 't1'))).toBeInstanceOf(NotFoundError);
  });

  it('gives both items of an expiring token the TTL attribute the table sweeps, in epoch seconds, and no other token one', async () => {
    const login = `u${randomUUID().slice(0, 8)}`;
    const expiring = { id: 'oidc-1', tokenHash: randomBytes(32).toString('hex'), login, description: 'OIDC repo:acme/infra', createdAt: clock, expiresAt: clock + 3_600_500 };
    const lasting = { id: 'ci-1', tokenHash: randomBytes(32).toString('hex'), login, description: 'ci', createdAt: clock };
    await storage.identity.putToken(expiring);
    await storage.identity.putToken(lasting);

    const item = async (pk: string, sk: string) => (await ddb.send(new GetItemCommand({ TableName: standIns.table, Key: { pk: { S: pk }, sk: { S: sk } } }))).Item;
    const byHash = await item(`APITOKEN#${expiring.tokenHash}`, 'APITOKEN');
    const byId = await item(`USER#${login}`, 'APITOKEN#oidc-1');
    const lastingByHash = await item(`APITOKEN#${lasting.tokenHash}`, 'APITOKEN');

    const ttl = String(Math.ceil((clock + 3_600_500) / 1000));
    expect([byHash?.[TTL_ATTRIBUTE]?.N, byId?.[TTL_ATTRIBUTE]?.N]).toEqual([ttl, ttl]);
    expect(lastingByHash).toBeDefined();
    expect(lastingByHash).not.toHaveProperty(TTL_ATTRIBUTE);
  });
});
