/**
 * Every read-modify-write of an environment is one conditional write: racing saves from separate service instances
 * (separate AWS clients, as separate Lambda instances) against DynamoDB Local, s3rver and the KMS stand-in. With the
 * same etag exactly one save lands and the others get 409; without an etag every save lands as its own revision, none
 * lost; a name and a tag are taken by exactly one of their racers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../shared/adapters/aws/clients.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Services } from '../../shared/core/compose/types.js';
import { ConflictError } from '../../shared/core/errors.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';

const INSTANCES = 6;
const ADMIN_TOKEN = 'environment-race-admin-token';
const DEV = { org: 'acme', project: 'app', name: 'dev' };

let standIns: AwsStandIns;
let restoreEnv: () => void;
let instances: Services[] = [];
let admin: Principal;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  instances = Array.from({ length: INSTANCES }, () =>
    createServices(createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, clients: createAwsClients() })),
  );
  const first = instances[0]!;
  await first.identity.ensureAdmin('root', ADMIN_TOKEN);
  admin = await first.identity.authenticate(ADMIN_TOKEN);
  await first.identity.createOrg(admin, 'acme');
  admin = await first.identity.authenticate(ADMIN_TOKEN);
  await first.environments.create(admin, DEV);
}, 120_000);

afterAll(async () => {
  restoreEnv?.();
  await standIns?.stop();
});

const settle = (calls: Promise<unknown>[]) => Promise.allSettled(calls);
const conflicts = (results: PromiseSettledResult<unknown>[]) =>
  results.filter((r) => r.status === 'rejected' && (r as PromiseRejectedResult).reason instanceof ConflictError).length;

describe('racing environment writes on DynamoDB', () => {
  it('lands exactly one of the saves made with the same etag', async () => {
    const { etag } = await instances[0]!.environments.getDefinition(admin, DEV, undefined, false);

    const results = await settle(instances.map((s, i) => s.environments.update(admin, DEV, `values:\n  writer: ${i}\n`, etag)));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(conflicts(results)).toBe(INSTANCES - 1);
    const history = await instances[0]!.environments.listRevisions(admin, DEV, {});
    expect(history.map((r) => r.number)).toEqual([2, 1]);
  });

  it('lands every save made without an etag as its own revision, none lost', async () => {
    const start = (await instances[0]!.environments.getDefinition(admin, DEV, undefined, false)).revision;

    const results = await settle(instances.map((s, i) => s.environments.update(admin, DEV, `values:\n  unconditional: ${i}\n`)));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(INSTANCES);
    const revisions = (results as PromiseFulfilledResult<{ revision: number }>[]).map((r) => r.value.revision).sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: INSTANCES }, (_, i) => start + 1 + i));
    const texts = await Promise.all(revisions.map((n) => instances[0]!.environments.getDefinition(admin, DEV, String(n), false)));
    expect(texts.map((t) => t.yaml).sort()).toEqual(Array.from({ length: INSTANCES }, (_, i) => `values:\n  unconditional: ${i}\n`).sort());
  });

  it('gives a new name and a new tag to exactly one racer each', async () => {
    const names = await settle(instances.map((s) => s.environments.create(admin, { ...DEV, name: 'contested' })));
    const tags = await settle(instances.map((s) => s.environments.createRevisionTag(admin, DEV, 'release', 1)));

    expect([names.filter((r) => r.status === 'fulfilled').length, conflicts(names)]).toEqual([1, INSTANCES - 1]);
    expect([tags.filter((r) => r.status === 'fulfilled').length, conflicts(tags)]).toEqual([1, INSTANCES - 1]);
    expect((await instances[0]!.environments.list(admin, 'acme')).environments.map((e) => e.name)).toEqual(['contested', 'dev']);
  });
});
