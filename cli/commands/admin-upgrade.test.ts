import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients, type AwsClients } from '../../shared/adapters/aws/clients.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { memberSk, TOKEN_HASH_SK, tokenHashPk, userPk, userTokenSk } from '../../shared/adapters/aws/keys.js';
import { createStackyardTable, KEY, TTL_ATTRIBUTE } from '../../shared/adapters/aws/table.js';
import type { Storage } from '../../shared/ports/index.js';
import { applyEnv } from '../../test/support/aws-stand-ins.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../test/support/dynamodb-local.js';
import { runAdminUpgrade } from './admin-upgrade.js';

let dynamodb: DynamoDbLocal;
let restoreEnv: () => void;
let clients: AwsClients;

beforeAll(async () => {
  dynamodb = await startDynamoDbLocal();
  restoreEnv = applyEnv({ AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  clients = createAwsClients();
});

afterAll(async () => {
  clients?.destroy();
  restoreEnv?.();
  await dynamodb?.stop();
});

function captureIo() {
  const err: string[] = [];
  return { io: { stdout: () => undefined, stderr: (line: string) => err.push(line) }, err };
}

describe('stackyard admin upgrade (DynamoDB Local)', () => {
  it('lists members added before the organization mirror existed, once, and changes nothing when run again', async () => {
    // Arrange: a table with one membership written as today (both copies) and two as older releases wrote them
    // (the user's copy only).
    const table = `upgrade-${randomUUID().slice(0, 8)}`;
    await createStackyardTable(clients.dynamodb, table);
    const storage: Storage = createAwsStorage({ table, bucket: 'unused', kmsKeyId: 'unused', clients });
    await storage.identity.createOrg({ name: 'acme', createdAt: 1 });
    for (const login of ['alice', 'bob', 'carol']) await storage.identity.createUser({ login, name: login, admin: false, createdAt: 1 });
    await storage.identity.addMember({ org: 'acme', login: 'alice', role: 'admin' });
    for (const [login, role] of [['bob', 'member'], ['carol', 'viewer']] as const) {
      const membership = { org: 'acme', login, role };
      await clients.documents.send(new PutCommand({ TableName: table, Item: { [KEY.partition]: userPk(login), [KEY.sort]: memberSk('acme'), ...membership } }));
    }
    const before = await storage.identity.listMembers('acme');

    // Act
    const first = captureIo();
    const upgraded = await runAdminUpgrade({ table }, first.io);
    const after = await storage.identity.listMembers('acme');
    const again = await runAdminUpgrade({ table }, captureIo().io);

    // Assess
    expect(before.map((m) => m.login)).toEqual(['alice']);
    expect(upgraded.memberMirrors).toEqual({ memberships: 3, added: 2 });
    expect(after).toEqual([
      { org: 'acme', login: 'alice', role: 'admin' },
      { org: 'acme', login: 'bob', role: 'member' },
      { org: 'acme', login: 'carol', role: 'viewer' },
    ]);
    expect(again.memberMirrors).toEqual({ memberships: 3, added: 0 });
    expect(await storage.identity.listMembers('acme')).toEqual(after);
    expect(first.err.join('\n')).toContain('3 memberships read, 2 added');
    // The mirrors behave as the ones addMember writes: a role change and a removal keep both copies in step.
    await storage.identity.setMemberRole('acme', 'bob', 'admin');
    await storage.identity.removeMember('acme', 'carol');
    expect(await storage.identity.listMembers('acme')).toEqual([
      { org: 'acme', login: 'alice', role: 'admin' },
      { org: 'acme', login: 'bob', role: 'admin' },
    ]);
  });

  it('gives expiring tokens stored before tokens had a TTL the attribute, once, and leaves other tokens alone', async () => {
    // Arrange: one expiring token as today (with its TTL), one as older releases wrote it (both copies without a
    // TTL), and one that never expires.
    const table = `upgrade-${randomUUID().slice(0, 8)}`;
    await createStackyardTable(clients.dynamodb, table);
    const storage: Storage = createAwsStorage({ table, bucket: 'unused', kmsKeyId: 'unused', clients });
    const expiresAt = Date.parse('2030-01-01T00:00:00.250Z');
    const token = (id: string, extra: object = {}) => ({ id, tokenHash: createHash('sha256').update(id).digest('hex'), login: 'ci', description: id, createdAt: 1, ...extra });
    await storage.identity.putToken(token('current', { expiresAt }));
    await storage.identity.putToken(token('lasting'));
    const old = token('old', { expiresAt });
    for (const [pk, sk] of [[tokenHashPk(old.tokenHash), TOKEN_HASH_SK], [userPk('ci'), userTokenSk('old')]]) {
      await clients.documents.send(new PutCommand({ TableName: table, Item: { [KEY.partition]: pk, [KEY.sort]: sk, ...old } }));
    }
    const ttlOf = async (pk: string, sk: string) =>
      (await clients.documents.send(new GetCommand({ TableName: table, Key: { [KEY.partition]: pk, [KEY.sort]: sk } }))).Item?.[TTL_ATTRIBUTE];

    // Act
    const first = captureIo();
    const upgraded = await runAdminUpgrade({ table }, first.io);
    const again = await runAdminUpgrade({ table }, captureIo().io);

    // Assert
    expect(upgraded.tokenTtl).toEqual({ tokens: 2, updated: 2 });
    expect(again.tokenTtl).toEqual({ tokens: 0, updated: 0 });
    expect(first.err.join('\n')).toContain('2 expiring token items without a TTL, 2 given one');
    const seconds = Math.ceil(expiresAt / 1000);
    expect(await ttlOf(tokenHashPk(old.tokenHash), TOKEN_HASH_SK)).toBe(seconds);
    expect(await ttlOf(userPk('ci'), userTokenSk('old'))).toBe(seconds);
    expect(await ttlOf(tokenHashPk(token('lasting').tokenHash), TOKEN_HASH_SK)).toBeUndefined();
    expect(await storage.identity.findToken(old.tokenHash)).toEqual(old);
  });

  it('asks for the table', async () => {
    await expect(runAdminUpgrade({ table: '' }, captureIo().io)).rejects.toThrow('Pass the table name');
  });
});
