import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsStorage, hashToken } from '../../shared/adapters/aws/index.js';
import type { Storage } from '../../shared/ports/index.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../../test/support/aws-stand-ins.js';
import { runAdminBootstrap } from './admin-bootstrap.js';

let standIns: AwsStandIns;
let restoreEnv: () => void;
let storage: Storage;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  storage = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId });
});

afterAll(async () => {
  await storage?.close();
  restoreEnv?.();
  await standIns?.stop();
});

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l) }, out, err };
}

async function scanTable(table: string): Promise<string> {
  const client = new DynamoDBClient({});
  try {
    const result = await client.send(new ScanCommand({ TableName: table }));
    return JSON.stringify(result.Items);
  } finally {
    client.destroy();
  }
}

describe('stackyard admin bootstrap (DynamoDB Local)', () => {
  it('creates an administrator with a usable token, printed once on stdout only', async () => {
    const table = await standIns.createTable();
    const { io, out, err } = captureIo();

    const result = await runAdminBootstrap({ table, user: 'alice' }, io, { now: () => 1_700_000_000_000 });

    expect(out).toEqual([result.token]);
    expect(err.join('\n')).not.toContain(result.token);
    const identity = createAwsStorage({ table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId }).identity;
    await expect(identity.getUser('alice')).resolves.toMatchObject({ login: 'alice', admin: true, createdAt: 1_700_000_000_000 });
    await expect(identity.findToken(hashToken(result.token))).resolves.toMatchObject({
      id: result.tokenId,
      login: 'alice',
      tokenHash: hashToken(result.token),
    });
    await expect(identity.getOrg('alice')).resolves.toMatchObject({ name: 'alice' });
    await expect(identity.listMemberships('alice')).resolves.toEqual([{ org: 'alice', login: 'alice', role: 'admin' }]);
  });

  it('never stores the plaintext token', async () => {
    const table = await standIns.createTable();

    const result = await runAdminBootstrap({ table, user: 'bob' }, captureIo().io);

    const everything = await scanTable(table);
    expect(everything).toContain(hashToken(result.token));
    expect(everything).not.toContain(result.token);
  });

  it('can run again: the user stays, earlier tokens stay valid, a new one is added', async () => {
    const table = await standIns.createTable();
    const first = await runAdminBootstrap({ table, user: 'carol' }, captureIo().io, { now: () => 1_000 });

    const second = await runAdminBootstrap({ table, user: 'carol' }, captureIo().io, { now: () => 2_000 });

    const identity = createAwsStorage({ table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId }).identity;
    expect(second.token).not.toBe(first.token);
    await expect(identity.getUser('carol')).resolves.toMatchObject({ admin: true, createdAt: 1_000 });
    const tokens = await identity.listTokens('carol');
    expect(tokens.map((t) => t.id).sort()).toEqual([first.tokenId, second.tokenId].sort());
    await expect(identity.findToken(hashToken(first.token))).resolves.toBeDefined();
  });

  it('promotes an existing user without losing their profile', async () => {
    const table = await standIns.createTable();
    const identity = createAwsStorage({ table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId }).identity;
    await identity.createUser({ login: 'dave', name: 'Dave Lister', email: 'dave@example.com', admin: false, createdAt: 5 });

    await runAdminBootstrap({ table, user: 'dave' }, captureIo().io);

    await expect(identity.getUser('dave')).resolves.toEqual({
      login: 'dave',
      name: 'Dave Lister',
      email: 'dave@example.com',
      admin: true,
      createdAt: 5,
    });
  });

  it('refuses a login that cannot also name the default organization, writing nothing', async () => {
    const table = await standIns.createTable();
    const { io, out } = captureIo();

    await expect(runAdminBootstrap({ table, user: 'j.doe' }, io)).rejects.toThrow(/--user/);

    expect(out).toEqual([]);
    expect(await scanTable(table)).toBe('[]');
  });
});
