import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import type { DeploymentRun } from '../../ports/index.js';
import type { ContractEnv, ContractSetup } from './setup.js';

/** A run just queued (`not-started`, revision 1) of the given stack, version and queue time. */
export function queuedDeploymentRun(stackId: string, version: number, created: number): DeploymentRun {
  return {
    id: randomUUID(),
    stackId,
    org: 'acme',
    project: 'web',
    stack: 'dev',
    version,
    operation: 'update',
    status: 'not-started',
    requestedBy: 'alice',
    initiator: 'api',
    settings: {},
    created,
    modified: created,
    revision: 1,
    updates: [],
  };
}

/** DeploymentStore guarantees: conditional settings writes, one run per version, one claim per run, ordered logs. */
export function deploymentStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`DeploymentStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    const run = queuedDeploymentRun;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('writes settings only at the version the writer read', async () => {
      const stackId = randomUUID();
      const first = { stackId, settings: { tag: 'a' }, version: 1, modifiedAt: 1, modifiedBy: 'alice' };

      await env.storage.deployments.putSettings(first, undefined);

      await expect(env.storage.deployments.putSettings({ ...first, settings: { tag: 'b' } }, undefined)).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.deployments.putSettings({ ...first, version: 2 }, 2)).rejects.toBeInstanceOf(ConflictError);
      await env.storage.deployments.putSettings({ ...first, settings: { tag: 'c' }, version: 2 }, 1);
      expect(await env.storage.deployments.getSettings(stackId)).toEqual({ ...first, settings: { tag: 'c' }, version: 2 });
      await env.storage.deployments.deleteSettings(stackId);
      expect(await env.storage.deployments.getSettings(stackId)).toBeUndefined();
      await env.storage.deployments.deleteSettings(stackId);
    });

    it('gives each version of a stack to one run and lists them newest first', async () => {
      const stackId = randomUUID();
      const first = run(stackId, 1, env.clock.now());
      await env.storage.deployments.createRun(first);

      await expect(env.storage.deployments.createRun(run(stackId, 1, env.clock.now()))).rejects.toBeInstanceOf(ConflictError);
      const second = run(stackId, 2, env.clock.now() + 1);
      await env.storage.deployments.createRun(second);

      expect((await env.storage.deployments.listRuns(stackId, 10)).map((r) => r.version)).toEqual([2, 1]);
      expect((await env.storage.deployments.listRuns(stackId, 1)).map((r) => r.version)).toEqual([2]);
      expect(await env.storage.deployments.getRun(stackId, first.id)).toEqual(first);
      expect(await env.storage.deployments.getRun(stackId, randomUUID())).toBeUndefined();
      expect(await env.storage.deployments.getRun(randomUUID(), first.id)).toBeUndefined();
    });

    it('claims queued runs oldest first, each once, and never a finished one', async () => {
      const stackId = randomUUID();
      const base = env.clock.now() - 10_000_000;
      const older = run(stackId, 1, base);
      const cancelled = run(randomUUID(), 1, base + 1);
      const newer = run(stackId, 2, base + 2);
      for (const r of [older, cancelled, newer]) await env.storage.deployments.createRun(r);
      await env.storage.deployments.updateRun({ ...cancelled, status: 'failed', revision: 2, failure: 'cancelled' }, 1);

      const claimedIds: string[] = [];
      for (;;) {
        const claimed = await env.storage.deployments.claimNext('runner-1', env.clock.now(), env.clock.now() + 60_000);
        if (!claimed) break;
        expect(claimed).toMatchObject({ status: 'accepted', claimedBy: 'runner-1', revision: 2 });
        claimedIds.push(claimed.id);
        await env.storage.deployments.updateRun({ ...claimed, status: 'succeeded', revision: 3 }, 2);
      }

      expect(claimedIds.indexOf(older.id)).toBeGreaterThanOrEqual(0);
      expect(claimedIds.indexOf(newer.id)).toBeGreaterThan(claimedIds.indexOf(older.id));
      expect(claimedIds).not.toContain(cancelled.id);
      expect((await env.storage.deployments.getRun(stackId, older.id))?.status).toBe('succeeded');
    });

    it('claims no second run of a stack while one of it is live, and the next as soon as it ends', async () => {
      const stackId = randomUUID();
      const now = env.clock.now();
      const first = run(stackId, 1, now - 9_000_000);
      const second = run(stackId, 2, now - 8_999_999);
      const other = run(randomUUID(), 1, now - 8_999_998);
      for (const r of [first, second, other]) await env.storage.deployments.createRun(r);
      const claim = () => env.storage.deployments.claimNext('runner-1', now, now + 60_000);
      const taken: string[] = [];
      for (let next = await claim(); next; next = await claim()) taken.push(next.id);
      expect(taken).toContain(first.id);
      expect(taken).toContain(other.id);
      expect(taken).not.toContain(second.id);

      await env.storage.deployments.updateRun({ ...first, status: 'succeeded', claimedBy: 'runner-1', claimedUntil: now + 60_000, revision: 3 }, 2);

      expect((await claim())?.id).toBe(second.id);
      await env.storage.deployments.updateRun({ ...other, status: 'failed', revision: 3 }, 2);
      await env.storage.deployments.updateRun({ ...second, status: 'failed', revision: 3 }, 2);
    });

    it('hands a run whose claim expired to one other runner, and never a live or finished one', async () => {
      const now = env.clock.now();
      const lost = run(randomUUID(), 1, now);
      const live = run(randomUUID(), 1, now);
      const finished = run(randomUUID(), 1, now);
      for (const r of [lost, live, finished]) await env.storage.deployments.createRun(r);
      await env.storage.deployments.updateRun({ ...lost, status: 'running', claimedBy: 'gone', claimedUntil: now - 1, revision: 2 }, 1);
      await env.storage.deployments.updateRun({ ...live, status: 'running', claimedBy: 'alive', claimedUntil: now + 60_000, revision: 2 }, 1);
      await env.storage.deployments.updateRun({ ...finished, status: 'accepted', claimedBy: 'gone', claimedUntil: now - 1, revision: 2 }, 1);
      await env.storage.deployments.updateRun({ ...finished, status: 'succeeded', claimedBy: 'gone', claimedUntil: now - 1, revision: 3 }, 2);

      const recovered: string[] = [];
      for (;;) {
        const claimed = await env.storage.deployments.claimLost('runner-2', now, now + 60_000);
        if (!claimed) break;
        recovered.push(claimed.id);
        if (claimed.id === lost.id) expect(claimed).toMatchObject({ status: 'running', claimedBy: 'runner-2', claimedUntil: now + 60_000, revision: 3 });
      }

      expect(recovered).toContain(lost.id);
      expect(recovered).not.toContain(live.id);
      expect(recovered).not.toContain(finished.id);
      expect(await env.storage.deployments.claimLost('runner-3', now, now + 60_000)).toBeUndefined();
    });

    it('updates a run only at the revision its writer read', async () => {
      const created = run(randomUUID(), 1, env.clock.now());
      await env.storage.deployments.createRun(created);

      await env.storage.deployments.updateRun({ ...created, status: 'running', revision: 2 }, 1);

      await expect(env.storage.deployments.updateRun({ ...created, status: 'failed', revision: 2 }, 1)).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.deployments.getRun(created.stackId, created.id))?.status).toBe('running');
    });

    it("keeps a finished run's pull request and what became of posting its result", async () => {
      const pullRequest = { provider: 'github' as const, number: 7, commit: 'c'.repeat(40) };
      const created = { ...run(randomUUID(), 1, env.clock.now()), operation: 'preview' as const, pullRequest };
      await env.storage.deployments.createRun(created);
      const finished = { ...created, status: 'succeeded' as const, revision: 2 };
      await env.storage.deployments.updateRun(finished, 1);
      const resultPost = { status: 'failed' as const, detail: 'GitHub refused a commit status', at: env.clock.now() };

      await env.storage.deployments.updateRun({ ...finished, resultPost, revision: 3 }, 2);

      expect(await env.storage.deployments.getRun(created.stackId, created.id)).toMatchObject({ status: 'succeeded', pullRequest, resultPost, revision: 3 });
    });

    it('records a webhook delivery once until it expires, per stack', async () => {
      const stackId = randomUUID();
      const now = env.clock.now();
      const delivery = `delivery-${randomUUID()}`;

      expect(await env.storage.deployments.recordDelivery(stackId, delivery, now, now + 60_000)).toBe(true);

      expect(await env.storage.deployments.recordDelivery(stackId, delivery, now + 1, now + 120_000)).toBe(false);
      expect(await env.storage.deployments.recordDelivery(randomUUID(), delivery, now, now + 60_000)).toBe(true);
      expect(await env.storage.deployments.recordDelivery(stackId, delivery, now + 60_001, now + 120_000)).toBe(true);
      expect(await env.storage.deployments.recordDelivery(stackId, delivery, now + 60_002, now + 120_000)).toBe(false);
    });

    it('keeps log lines in the order they were appended', async () => {
      const runId = randomUUID();
      await env.storage.deployments.appendLog(runId, [{ timestamp: 1, line: 'one' }, { timestamp: 2, line: 'two' }]);
      await env.storage.deployments.appendLog(runId, [{ timestamp: 3, line: 'three' }]);

      expect((await env.storage.deployments.readLog(runId, 0, 100)).map((l) => l.line)).toEqual(['one', 'two', 'three']);
      expect((await env.storage.deployments.readLog(runId, 1, 1)).map((l) => l.line)).toEqual(['two']);
      expect(await env.storage.deployments.readLog(randomUUID(), 0, 10)).toEqual([]);
    });
  });
}
