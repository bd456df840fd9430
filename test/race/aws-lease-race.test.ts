import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLeaseStore } from '../../shared/adapters/aws/dynamodb-lease-store.js';
import { ForbiddenError, LeaseHeldError } from '../../shared/core/errors.js';
import type { TokenRef } from '../../shared/ports/lease-store.js';
import { startRaceTable, type RaceTable } from '../support/race-table.js';

const ROUNDS = 100;
const ACQUIRERS = 20;
const DURATION_MS = 10_000;

let race: RaceTable;
let stores: DynamoDbLeaseStore[] = [];
let clock = Date.now();

beforeAll(async () => {
  race = await startRaceTable(ACQUIRERS);
  const { table, clients } = race;
  stores = clients.map((c) => new DynamoDbLeaseStore(c.documents, table, () => clock));
});

afterAll(async () => {
  await race?.stop();
});

async function expectForbidden(promise: Promise<unknown>): Promise<void> {
  await expect(promise).rejects.toBeInstanceOf(ForbiddenError);
}

async function expectDead(ref: TokenRef, store: DynamoDbLeaseStore): Promise<void> {
  await expectForbidden(store.validate(ref));
  await expectForbidden(store.renew(ref, DURATION_MS));
  await expectForbidden(store.release(ref));
}

describe('DynamoDB lease under contention', () => {
  it(
    `gives the lease to exactly one of ${ACQUIRERS} concurrent acquirers, ${ROUNDS} rounds`,
    async () => {
      const stackId = randomUUID();
      const dead: TokenRef[] = [];
      const endings = { released: 0, revoked: 0, takenOver: 0 };

      for (let round = 0; round < ROUNDS; round++) {
        clock += 1;
        const updateIds = stores.map((_, i) => `r${round}-a${i}`);
        const results = await Promise.allSettled(
          stores.map((store, i) => store.acquire({ stackId, updateId: updateIds[i], holder: `user${i}`, durationMs: DURATION_MS })),
        );
        const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [{ i, grant: result.value }] : []));
        expect(winners, `round ${round}`).toHaveLength(1);
        const [{ i: w, grant }] = winners;
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(result.reason).toBeInstanceOf(LeaseHeldError);
            expect((result.reason as LeaseHeldError).lease.updateId).toBe(updateIds[w]);
          }
        }

        // Whatever ended the previous round (release, revoke, takeover), that token stays dead.
        const other = stores[(w + 1) % ACQUIRERS];
        if (dead.length > 0) await expectDead(dead[dead.length - 1], other);
        await Promise.all(dead.slice(-6, -1).map((ref) => expectForbidden(other.validate(ref))));

        const ref = { stackId, updateId: updateIds[w], token: grant.token };
        await stores[w].validate(ref);
        clock += DURATION_MS - 1;
        const renewed = await stores[w].renew(ref, DURATION_MS);
        expect(renewed.token).toBe(grant.token);
        clock += 2;
        // Past the original expiry, alive thanks to the renewal, from any instance.
        await other.validate(ref);
        expect((await other.current(stackId))?.updateId).toBe(updateIds[w]);

        switch (round % 3) {
          case 0:
            await stores[w].release(ref);
            endings.released++;
            break;
          case 1:
            await other.revoke(stackId, updateIds[w]);
            endings.revoked++;
            break;
          default:
            // Let it expire: the next round's race is a takeover of an expired lease.
            clock += DURATION_MS;
            await expectForbidden(other.validate(ref));
            endings.takenOver++;
        }
        dead.push(ref);
      }
      expect(endings.released + endings.revoked + endings.takenOver).toBe(ROUNDS);
    },
    300_000,
  );
});
