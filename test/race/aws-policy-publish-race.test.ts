/**
 * Concurrent publishes of one policy pack version from separate service instances (separate client sets, as separate
 * Lambda instances) against DynamoDB Local and s3rver, each making the `pulumi policy publish` calls (create, upload,
 * complete): the version's pending record is one conditional write, so exactly one publish gets it and completes; every
 * other is refused with 409 before it uploads anything, and storage holds one record and one tarball.
 */
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients, createAwsStorage, type AwsClients } from '../../shared/adapters/aws/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Services } from '../../shared/core/compose/types.js';
import { ConflictError } from '../../shared/core/errors.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { npmPack, PUBLISHED_PACK_POLICIES } from '../support/policy-pack-tarball.js';

const INSTANCES = 4;
const ADMIN_TOKEN = `sy_${randomUUID()}`;

let standIns: AwsStandIns;
let restoreEnv: () => void;
let clients: AwsClients[] = [];
let instances: Services[] = [];
let admin: Principal;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  const { table, bucket, kmsKeyId } = standIns;
  clients = Array.from({ length: INSTANCES }, () => createAwsClients());
  instances = clients.map((c) => createServices(createAwsStorage({ table, bucket, kmsKeyId, clients: c })));
  await instances[0]!.identity.ensureAdmin('root', ADMIN_TOKEN);
  admin = await instances[0]!.identity.authenticate(ADMIN_TOKEN);
  await instances[0]!.identity.createOrg(admin, 'acme');
  admin = await instances[0]!.identity.authenticate(ADMIN_TOKEN);
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.destroy();
  restoreEnv?.();
  await standIns?.stop();
});

/** One instance's publish, as the CLI makes it: create, PUT to the (presigned S3) upload URI it got, complete. */
async function publish(services: Services, tarball: Buffer): Promise<void> {
  const request = { name: 'raced', displayName: 'Raced', versionTag: '1.0.0', policies: PUBLISHED_PACK_POLICIES, runtime: 'nodejs' };
  const created = await services.policies.createPack(admin, 'acme', request);
  const upload = await fetch(created.uploadURI, { method: 'PUT', headers: created.requiredHeaders, body: new Uint8Array(tarball) });
  if (upload.status !== 200) throw new Error(`the presigned upload answered ${upload.status}`);
  await services.policies.completePack(admin, 'acme', 'raced', '1.0.0');
}

describe('publishing one policy pack version from several instances at once (DynamoDB Local, s3rver)', () => {
  it('lets exactly one publish win; the others get 409 and store nothing', async () => {
    const tarball = npmPack();

    const results = await Promise.allSettled(instances.map((services) => publish(services, tarball)));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
    expect(refused).toHaveLength(INSTANCES - 1);
    for (const error of refused) {
      expect(error).toBeInstanceOf(ConflictError);
      expect(error.message).toMatch(/Version 1\.0\.0 of policy pack 'raced' is (being|already) published/);
    }
    const versions = await instances[0]!.policies.listPacks(admin, 'acme');
    expect(versions).toEqual({ policyPacks: [{ name: 'raced', displayName: 'Raced', versions: [1], versionTags: ['1.0.0'] }] });
    const stored = await clients[0]!.s3.send(new ListObjectsV2Command({ Bucket: standIns.bucket, Prefix: 'v1/policypacks/acme/' }));
    expect((stored.Contents ?? []).map((o) => o.Key)).toEqual(['v1/policypacks/acme/raced/1.0.0.tgz']);
    expect(Buffer.from(await instances[0]!.policies.downloadPackage(admin, 'acme', 'raced', '1.0.0'))).toEqual(tarball);
  }, 120_000);
});
