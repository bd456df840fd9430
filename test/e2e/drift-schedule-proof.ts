/**
 * The acting half of the drift schedule test of deployment-runs.test.ts: a stack deployed by a run, its resource
 * changed out of band, a `drift_detected` hook, then a `* * * * *` drift schedule with autoRemediate, and what its
 * first run left behind. A cron schedule fires at the next minute, so this waits up to 60 s for serve's scheduler: the
 * test file starts it early on a serve and a repository of its own, and asserts on what it returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../cli/cli-harness.js';
import type { Receiver } from '../hooks/hook-fixtures.js';
import { changeInWorld, worldResource } from '../support/testprov-world.js';
import type { DeploymentService, RunView, StateResource } from './deployment-service.js';

const DRIFT = '/api/stacks/admin/runapp/drift';

/** What the drift schedule's first run did, and what was deployed before it. */
export interface DriftObservations {
  thing: StateResource;
  /** The resource's value as the run deployed it, before the out-of-band change. */
  deployedValue: unknown;
  /** The exit status of `stackyard hook add … --events drift_detected`. */
  hookAdded: number | null;
  /** When the schedule was created (epoch ms, before the request). */
  scheduledAt: number;
  run: { id: string; created: string; initiator: string };
  done: RunView;
  driftRuns: Record<string, unknown>[];
  /** The resource's value in the provider's world once the run ended. */
  valueAfterRun: unknown;
  log: string;
  delivery: { body: string };
  /** `stackyard stack drift ls`. */
  driftList: string;
}

/** Deploys `repoUrl` to `admin/runapp/drift` on `serve`, drifts it, and waits for a drift schedule's first run. */
export async function observeDriftSchedule(serve: DeploymentService, repoUrl: string, receiver: Receiver): Promise<DriftObservations> {
  const world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
  const cli = (...args: string[]) => serve.cli('admin/runapp/drift', ...args);
  try {
    await serve.deployableStack('drift', repoUrl, world);
    const thing = await serve.deployed(DRIFT);
    const deployedValue = worldResource(world, thing.id)!.value;
    changeInWorld(world, thing.id, { ...worldResource(world, thing.id)!, value: 'changed by hand' });
    const hookAdded = (await cli('hook', 'add', 'drift', '--url', `${receiver.url}/ok/drift`, '--events', 'drift_detected')).status;
    const scheduledAt = Date.now();
    const schedule = JSON.parse((await cli('stack', 'schedule', 'new', '--kind', 'drift', '--cron', '* * * * *', '--auto-remediate', '--output', 'json')).stdout);

    const run = await serve.firstRun(DRIFT, 'detect-drift', 75_000);
    await serve.api('DELETE', `${DRIFT}/deployments/schedules/${schedule.id}`);
    const done = await serve.endedOn(DRIFT, run.id);

    const driftRuns = ((await serve.api('GET', `${DRIFT}/drift/runs`)) as { driftRuns: Record<string, unknown>[] }).driftRuns;
    const valueAfterRun = worldResource(world, thing.id)?.value;
    const log = await serve.logOf(DRIFT, run.id);
    const delivery = await until('the drift_detected delivery', async () => (await receiver.received()).find((r) => r.path === '/ok/drift'));
    const driftList = (await cli('stack', 'drift', 'ls')).stdout;
    return { thing, deployedValue, hookAdded, scheduledAt, run, done, driftRuns, valueAfterRun, log, delivery, driftList };
  } finally {
    rmSync(world, { recursive: true, force: true });
  }
}
