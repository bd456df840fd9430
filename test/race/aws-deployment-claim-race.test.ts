/**
 * The run queue hands each run to one runner: runners with separate AWS clients (separate processes, as CodeBuild
 * launchers and serve workers are) claim at once against DynamoDB Local; every queued run is claimed exactly once,
 * and two runners racing for the one run of a queue end with one claim; a run whose runner's claim lapsed is
 * recovered by exactly one of the runners racing for it; a runner that saw a stack idle just before another claimed
 * one of its runs claims none of its others; one push webhook delivery received by six services at once is recorded
 * (and so acted on) by one.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../shared/adapters/aws/clients.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import type { DeploymentRun, Storage } from '../../shared/ports/index.js';
import { queuedDeploymentRun } from '../../shared/testing/contracts/deployment-store.contract.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';

const RUNNERS = 6;
let standIns: AwsStandIns;
let restoreEnv: () => void;
let runners: Storage[] = [];

/** Every runner claims until the queue is empty; returns the ids each claimed. */
async function drain(now: number): Promise<string[][]> {
  return Promise.all(
    runners.map(async (storage, index) => {
      const mine: string[] = [];
      for (;;) {
        const claimed = await storage.deployments.claimNext(`runner-${index}`, now, now + 60_000);
        if (!claimed) return mine;
        mine.push(claimed.id);
        await storage.deployments.updateRun({ ...claimed, status: 'succeeded', revision: claimed.revision + 1 }, claimed.revision);
      }
    }),
  );
}

/**
 * A runner's storage whose DynamoDB client, once it has read the live runs (`DEPLOYLIVE`), waits for `gate` before
 * it goes on: the interleaving a slow runner meets, made certain. `read` resolves when that read returned.
 */
function pausedAfterLiveRead(gate: Promise<void>): { storage: Storage; read: Promise<void> } {
  const clients = createAwsClients();
  const send = clients.documents.send.bind(clients.documents) as (command: unknown) => Promise<unknown>;
  let readDone!: () => void;
  const read = new Promise<void>((resolve) => (readDone = resolve));
  (clients.documents as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command) => {
    const output = await send(command);
    if (command instanceof QueryCommand && command.input.ExpressionAttributeValues?.[':pk'] === 'DEPLOYLIVE') {
      readDone();
      await gate;
    }
    return output;
  };
  return { storage: createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, clients }), read };
}

beforeAll(async () => {
  standIns = await startAwsStandIns();
  restoreEnv = applyEnv(standIns.env);
  runners = Array.from({ length: RUNNERS }, () =>
    createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId, clients: createAwsClients() }),
  );
}, 120_000);

afterAll(async () => {
  for (const storage of runners) await storage.close();
  restoreEnv?.();
  await standIns?.stop();
});

describe('racing runners on the DynamoDB run queue', () => {
  it('gives the one queued run to exactly one of two runners', async () => {
    const run = queuedDeploymentRun(randomUUID(), 1, Date.now());
    await runners[0]!.deployments.createRun(run);

    const claims = await Promise.all([0, 1].map((i) => runners[i]!.deployments.claimNext(`runner-${i}`, Date.now(), Date.now() + 60_000)));

    const winners = claims.filter((claim) => claim !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.id).toBe(run.id);
    expect((await runners[0]!.deployments.getRun(run.stackId, run.id))?.claimedBy).toBe(winners[0]!.claimedBy);
  });

  it('claims no second run of a stack when a runner read no live run just before another claimed the first', async () => {
    const stackId = randomUUID();
    const first = queuedDeploymentRun(stackId, 1, Date.now());
    const second = queuedDeploymentRun(stackId, 2, Date.now() + 1);
    for (const run of [first, second]) await runners[0]!.deployments.createRun(run);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = pausedAfterLiveRead(gate);

    // The slow runner reads the live runs (none), then waits while another claims the stack's first run.
    const late = slow.storage.deployments.claimNext('runner-slow', Date.now(), Date.now() + 60_000);
    await slow.read;
    const won = await runners[0]!.deployments.claimNext('runner-0', Date.now(), Date.now() + 60_000);
    release();

    expect(won?.id).toBe(first.id);
    expect(await late).toBeUndefined();
    expect((await runners[0]!.deployments.getRun(stackId, second.id))?.status).toBe('not-started');
    await slow.storage.close();
  });

  it('gives a run whose runner was lost to exactly one of six recovering runners', async () => {
    const run = queuedDeploymentRun(randomUUID(), 1, Date.now());
    await runners[0]!.deployments.createRun(run);
    const claimed = await runners[0]!.deployments.claimNext('runner-dead', Date.now() - 120_000, Date.now() - 60_000);
    expect(claimed?.id).toBe(run.id);

    const recoveries = await Promise.all(runners.map((storage, i) => storage.deployments.claimLost(`runner-${i}`, Date.now(), Date.now() + 60_000)));

    const winners = recoveries.filter((recovered) => recovered?.id === run.id);
    expect(winners).toHaveLength(1);
    expect((await runners[0]!.deployments.getRun(run.stackId, run.id))?.claimedBy).toBe(winners[0]!.claimedBy);
  });

  it('records one webhook delivery for exactly one of six services receiving it at once', async () => {
    const stackId = randomUUID();
    const now = Date.now();

    const fresh = await Promise.all(runners.map((storage) => storage.deployments.recordDelivery(stackId, 'github-delivery-1', now, now + 60_000)));

    expect(fresh.filter(Boolean)).toHaveLength(1);
  });

  it('claims each of many queued runs exactly once across six runners', async () => {
    const stacks = [randomUUID(), randomUUID(), randomUUID()];
    const queued: DeploymentRun[] = [];
    const start = Date.now();
    for (let i = 0; i < 12; i++) queued.push(queuedDeploymentRun(stacks[i % 3]!, Math.floor(i / 3) + 1, start + i));
    for (const run of queued) await runners[0]!.deployments.createRun(run);

    const claimed = (await drain(Date.now())).flat();

    expect(claimed.sort()).toEqual(queued.map((run) => run.id).sort());
  });
});
