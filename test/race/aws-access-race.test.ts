/**
 * Stack grants are one atomic write of the subject's entry in the stack's grants map (no revision check, no retry):
 * concurrent grants from separate service instances (separate clients, as separate Lambda instances) against
 * DynamoDB Local must all land, none lost, each in exactly one write with exactly one audit entry.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { Services } from '../../shared/core/compose/types.js';
import { startRaceTable, type RaceTable } from '../support/race-table.js';

const INSTANCES = 8;
const ADMIN_TOKEN = `sy_${randomUUID()}`;
const ref = { org: 'acme', project: 'web', stack: 'prod' };

let race: RaceTable;
let instances: Services[] = [];
let admin: Principal;

beforeAll(async () => {
  race = await startRaceTable(INSTANCES);
  const { table, clients } = race;
  // Nothing here touches S3 or KMS: stacks without state and grants live in the table only.
  instances = clients.map((c) => createServices(createAwsStorage({ table, bucket: 'unused', kmsKeyId: 'unused', clients: c })));
  const first = instances[0]!;
  await first.identity.ensureAdmin('root', ADMIN_TOKEN);
  admin = await first.identity.authenticate(ADMIN_TOKEN);
  await first.identity.createOrg(admin, 'acme');
  // Memberships are read at authentication: the creator of acme is its admin from the next request on.
  admin = await first.identity.authenticate(ADMIN_TOKEN);
  for (let i = 0; i < INSTANCES; i += 1) {
    await first.identity.createUser(admin, { login: `user${i}` });
    await first.identity.addMember(admin, 'acme', `user${i}`, 'member');
  }
  await first.stacks.create(admin, ref);
});

afterAll(async () => {
  await race?.stop();
});

describe('concurrent stack grants on DynamoDB', () => {
  it('keeps every grant when separate instances grant at once', async () => {
    await Promise.all(instances.map((services, i) => services.access.setStackGrant(admin, ref, { user: `user${i}` }, 'read')));

    const grants = await instances[0]!.access.listStackGrants(admin, ref);
    const stack = await instances[0]!.stacks.get(admin, ref);

    expect(grants.map((g) => g.name).sort()).toEqual(Array.from({ length: INSTANCES }, (_, i) => `user${i}`).sort());
    // Created at revision 1, then exactly one write per grant.
    expect(stack.revision).toBe(1 + INSTANCES);
    const audit = await instances[0]!.audit.list(admin, 'acme', { event: 'stack.permission-changed' });
    expect(audit.entries.map((e) => e.description).sort()).toEqual(
      Array.from({ length: INSTANCES }, (_, i) => `gave 'read' to user:user${i} on acme/web/prod`).sort(),
    );
  });
});
