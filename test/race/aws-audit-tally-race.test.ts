/**
 * Refused sign-ins are tallied per source, route and minute, each refusal one conditional write of the tally: N
 * concurrent refusals from one source at one route in one minute, through separate service instances (separate
 * clients, as separate Lambda instances) against DynamoDB Local, must leave exactly one tally with count N.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Services } from '../../shared/core/compose/types.js';
import { UnauthorizedError } from '../../shared/core/errors.js';
import { startRaceTable, type RaceTable } from '../support/race-table.js';

const INSTANCES = 8;
const PER_INSTANCE = 5;
const ADMIN_TOKEN = `sy_${randomUUID()}`;
/** All refusals fall in one minute: the clock stands 10 s into it. */
const NOW = Date.parse('2026-11-28T01:00:10Z');

let race: RaceTable;
let instances: Services[] = [];

beforeAll(async () => {
  race = await startRaceTable(INSTANCES);
  const { table, clients } = race;
  instances = clients.map((c) => createServices(createAwsStorage({ table, bucket: 'unused', kmsKeyId: 'unused', clients: c }), { now: () => NOW }));
  await instances[0]!.identity.ensureAdmin('root', ADMIN_TOKEN);
});

afterAll(async () => {
  await race?.stop();
});

describe('concurrent refused sign-ins on DynamoDB', () => {
  it('leave one tally per source, route and minute, counting every refusal', async () => {
    const refusals = instances.flatMap((services, i) =>
      Array.from({ length: PER_INSTANCE }, (_, n) =>
        services.identity
          .authenticate(`sy_guess-${i}-${n}`, { id: `req-${i}-${n}`, sourceIp: '203.0.113.50', userAgent: `flood/${i}`, route: 'GET /api/user' })
          .then(
            () => 'accepted',
            (error: unknown) => (error instanceof UnauthorizedError ? 'refused' : String(error)),
          ),
      ),
    );

    const outcomes = await Promise.all(refusals);
    const root = await instances[0]!.identity.authenticate(ADMIN_TOKEN);
    const log = await instances[0]!.audit.list(root, '', { event: 'auth.failed' });

    expect(outcomes).toEqual(Array.from({ length: INSTANCES * PER_INSTANCE }, () => 'refused'));
    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]).toMatchObject({
      actor: 'anonymous',
      sourceIp: '203.0.113.50',
      route: 'GET /api/user',
      count: INSTANCES * PER_INSTANCE,
      time: NOW,
      lastSeen: NOW,
      description: 'unknown or revoked access token',
    });
  });
});
