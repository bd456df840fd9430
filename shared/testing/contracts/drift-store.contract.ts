import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import type { DriftRunRecord } from '../../ports/index.js';
import type { ContractEnv, ContractSetup } from './setup.js';

function driftRun(stackId: string, created: number, driftDetected: boolean): DriftRunRecord {
  return {
    id: randomUUID(),
    stackId,
    org: 'acme',
    created,
    modified: created + 10,
    status: 'succeeded',
    driftDetected,
    resourceChanges: driftDetected ? { update: 1 } : { same: 1 },
    resources: driftDetected ? [{ urn: 'urn:pulumi:dev::web::aws:s3/bucket:Bucket::b', type: 'aws:s3/bucket:Bucket', change: 'update', properties: ['tags'] }] : [],
    requestedBy: 'alice',
  };
}

/** DriftStore guarantees: one record per preview, the stack's runs newest first with their total. */
export function driftStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`DriftStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('keeps the first record of a preview recorded twice', async () => {
      const stackId = randomUUID();
      const first = driftRun(stackId, 1_000, true);

      await env.storage.drift.recordRun(first);
      await env.storage.drift.recordRun({ ...first, driftDetected: false, resources: [] });

      expect(await env.storage.drift.listRuns(stackId, { limit: 10, skip: 0 })).toEqual({ runs: [first], total: 1 });
    });

    it("lists a stack's runs newest first, a page at a time, with the total", async () => {
      const stackId = randomUUID();
      const runs = [driftRun(stackId, 3_000, false), driftRun(stackId, 1_000, true), driftRun(stackId, 2_000, true)];
      for (const run of runs) await env.storage.drift.recordRun(run);
      await env.storage.drift.recordRun(driftRun(randomUUID(), 4_000, true));

      const firstPage = await env.storage.drift.listRuns(stackId, { limit: 2, skip: 0 });
      const secondPage = await env.storage.drift.listRuns(stackId, { limit: 2, skip: 2 });

      expect(firstPage.runs.map((r) => r.created)).toEqual([3_000, 2_000]);
      expect(firstPage.total).toBe(3);
      expect(secondPage.runs.map((r) => r.created)).toEqual([1_000]);
      expect(await env.storage.drift.listRuns(randomUUID(), { limit: 5, skip: 0 })).toEqual({ runs: [], total: 0 });
    });

    it("records a run's remediation and changes nothing else of it; an unknown run is not found", async () => {
      const stackId = randomUUID();
      const run = driftRun(stackId, 5_000, true);
      await env.storage.drift.recordRun(run);
      const remediation = { updateId: randomUUID(), status: 'succeeded', resourceChanges: { update: 1 }, modified: 6_000 };

      await env.storage.drift.recordRemediation(run, remediation);

      expect(await env.storage.drift.listRuns(stackId, { limit: 10, skip: 0 })).toEqual({ runs: [{ ...run, remediateUpdate: remediation }], total: 1 });
      await expect(env.storage.drift.recordRemediation({ ...run, id: randomUUID() }, remediation)).rejects.toBeInstanceOf(NotFoundError);
    });
  });
}
