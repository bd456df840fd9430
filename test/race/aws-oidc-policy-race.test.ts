/**
 * The 50-policies-per-organization OIDC cap is kept in the write that adds a policy (a per-organization counter in the
 * same TransactWriteItems, conditional on being under the cap): concurrent adds from separate service instances
 * (separate clients, as separate Lambda instances) against DynamoDB Local never pass it, a refused add changes
 * nothing, and organizations whose policies were stored before the counter existed get it on first use.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { OIDC_POLICY_COUNT_SK, oidcPolicySk, orgPk } from '../../shared/adapters/aws/keys.js';
import { KEY } from '../../shared/adapters/aws/table.js';
import { OidcPolicyLimitError } from '../../shared/core/errors.js';
import type { OidcPolicyInput } from '../../shared/core/oidc/policies.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { Services } from '../../shared/core/compose/types.js';
import { startRaceTable, type RaceTable } from '../support/race-table.js';

const INSTANCES = 8;
const CAP = 50;
const ADMIN_TOKEN = `sy_${randomUUID()}`;

let race: RaceTable;
let instances: Services[] = [];
let admin: Principal;

beforeAll(async () => {
  race = await startRaceTable(INSTANCES);
  const { table, clients } = race;
  // Policies, organizations and the audit log live in the table only: no S3 or KMS.
  instances = clients.map((c) => createServices(createAwsStorage({ table, bucket: 'unused', kmsKeyId: 'unused', clients: c })));
  await instances[0]!.identity.ensureAdmin('root', ADMIN_TOKEN);
  admin = await instances[0]!.identity.authenticate(ADMIN_TOKEN);
  for (const org of ['acme', 'legacy']) await instances[0]!.identity.createOrg(admin, org);
  // Memberships are read at authentication: the creator of the organizations is their admin from the next request on.
  admin = await instances[0]!.identity.authenticate(ADMIN_TOKEN);
});

afterAll(async () => {
  await race?.stop();
});

let policyNumber = 0;
function input(): OidcPolicyInput {
  policyNumber += 1;
  return { issuer: 'https://token.actions.githubusercontent.com', claims: { sub: `repo:acme/repo${policyNumber}:*` }, tokenKind: 'organization' };
}

/** One add from each instance at once; what each got, in instance order. */
async function addFromEveryInstance(org: string): Promise<PromiseSettledResult<unknown>[]> {
  return Promise.allSettled(instances.map((services) => services.oidc.createPolicy(admin, org, input())));
}

async function storedCount(org: string): Promise<unknown> {
  const { Item } = await race.clients[0]!.documents.send(
    new GetCommand({ TableName: race.table, Key: { [KEY.partition]: orgPk(org), [KEY.sort]: OIDC_POLICY_COUNT_SK }, ConsistentRead: true }),
  );
  return Item?.policies;
}

async function auditedEvents(org: string, event: string): Promise<number> {
  return (await instances[0]!.audit.list(admin, org, { event, limit: 1000 })).entries.length;
}

function refusals(results: PromiseSettledResult<unknown>[]): unknown[] {
  return results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
}

describe('the OIDC trust policy cap under concurrency (DynamoDB Local)', () => {
  it('lets exactly the places left be taken when separate instances add at once, and refuses the rest with a 400', async () => {
    for (let i = 0; i < CAP - 3; i += 1) await instances[i % INSTANCES]!.oidc.createPolicy(admin, 'acme', input());

    const results = await addFromEveryInstance('acme');

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = refusals(results);
    expect(refused).toHaveLength(INSTANCES - 3);
    for (const error of refused) {
      expect(error).toBeInstanceOf(OidcPolicyLimitError);
      expect(error).toMatchObject({ status: 400, message: `An organization has at most ${CAP} OIDC trust policies: remove one first.` });
    }
    expect(await instances[0]!.oidc.listPolicies(admin, 'acme')).toHaveLength(CAP);
    // A refused add bumped no counter and left no audit entry.
    expect(await storedCount('acme')).toBe(CAP);
    expect(await auditedEvents('acme', 'oidc.policy-created')).toBe(CAP);
  });

  it('frees exactly one place per removed policy, also when every instance removes the same one at once', async () => {
    const [first, second] = await instances[0]!.oidc.listPolicies(admin, 'acme');

    const removals = await Promise.allSettled(instances.map((services, i) => services.oidc.deletePolicy(admin, 'acme', (i % 2 === 0 ? first : second)!.id)));
    const countAfterRemovals = await storedCount('acme');
    const adds = await addFromEveryInstance('acme');

    expect(removals.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(refusals(removals).map((e) => (e as Error).constructor.name)).toEqual(Array.from({ length: INSTANCES - 2 }, () => 'NotFoundError'));
    expect(countAfterRemovals).toBe(CAP - 2);
    expect(adds.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(refusals(adds).every((e) => e instanceof OidcPolicyLimitError)).toBe(true);
    expect(await instances[0]!.oidc.listPolicies(admin, 'acme')).toHaveLength(CAP);
    expect(await storedCount('acme')).toBe(CAP);
    expect(await auditedEvents('acme', 'oidc.policy-deleted')).toBe(2);
  });

  it('counts the policies of an organization stored before the counter existed, once, and keeps the cap for it', async () => {
    // Arrange: policies as the release before the counter wrote them (the policy items only).
    for (let i = 0; i < CAP - 2; i += 1) {
      const id = randomUUID();
      const policy = { org: 'legacy', id, issuer: 'https://gitlab.com', audiences: ['urn:pulumi:org:legacy'], claims: { sub: `project_path:legacy/p${i}:*` }, tokenKind: 'organization', maxLifetimeSeconds: 3600, description: '', createdAt: i, createdBy: 'root' };
      await race.clients[0]!.documents.send(new PutCommand({ TableName: race.table, Item: { [KEY.partition]: orgPk('legacy'), [KEY.sort]: oidcPolicySk(id), ...policy } }));
    }
    const countBefore = await storedCount('legacy');

    const results = await addFromEveryInstance('legacy');

    expect(countBefore).toBeUndefined();
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(refusals(results).every((e) => e instanceof OidcPolicyLimitError)).toBe(true);
    expect(await instances[0]!.oidc.listPolicies(admin, 'legacy')).toHaveLength(CAP);
    expect(await storedCount('legacy')).toBe(CAP);
  });
});
