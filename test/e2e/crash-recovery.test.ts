/**
 * Crashes: an `up` of 50 resources through `stackyard serve` is killed with SIGKILL (the CLI with its language host
 * and providers) at random points, many times over. After each kill the stored state holds every finished create and
 * lists the unfinished ones as pending operations; the stack frees itself once the short lease runs out (no
 * `cancel`); and `refresh` + `up` finally converge on the program's 50 resources. About 2 min: each cycle is a CLI
 * start, a wait for the killed run's 2 s lease, a refresh and one or two creates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, until } from '../cli/cli-harness.js';
import { worldIds } from '../support/testprov-world.js';
import { E2eService, SHORT_LEASE, nameOf, type E2eProject } from './e2e-harness.js';

const COUNT = 50;
const KILLS = 20;
const CREATE_MS = 150;
const LEASE_MS = Number(SHORT_LEASE.STACKYARD_LEASE_SECONDS) * 1000;

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

describe('an `up` killed at random points through `stackyard serve`', () => {
  let service: E2eService;
  let project: E2eProject;

  const creates = () => project.providerCalls().filter((c) => c.op === 'create');

  beforeAll(async () => {
    service = await E2eService.start({ storage: 'local' });
    project = await service.project('many', 'test/e2e/fixtures/many', 'dev', SHORT_LEASE);
    await project.cli('config', 'set', 'count', String(COUNT));
    await project.cli('config', 'set', 'delay', String(CREATE_MS));
  });

  afterAll(async () => {
    await service?.stop();
    removeSandboxes();
  });

  it(`keeps every finished step, lists the unfinished ones, frees the stack, and converges after ${KILLS} kills`, { timeout: 240_000 }, async () => {
    let kills = 0;
    let pendingSeen = 0;
    let waitedForKilledRun = 0;
    while (kills < KILLS) {
      const before = creates().length;
      const killAfter = before + randomInt(1, 2);
      // Each run first waits for the killed run's lease, then refreshes away its pending operations.
      const run = project.spawn(['up', '--yes', '--skip-preview', '--refresh', '--wait=60s', '--parallel', '1']);
      await until('the run to start creating', async () => (creates().length >= killAfter || !run.running ? true : undefined), 30_000);
      if (!run.running) break;
      await new Promise((resolve) => setTimeout(resolve, randomInt(0, CREATE_MS - 30)));
      await run.kill();
      kills++;
      if (/waiting for update/.test(run.stdout)) waitedForKilledRun++;

      const state = await project.export();
      const resources = state.deployment.resources ?? [];
      const pending = state.deployment.pending_operations ?? [];
      const stored = new Set(resources.map((r) => nameOf(r.urn)));
      const unfinished = new Set(pending.map((p) => nameOf(p.resource.urn)));
      pendingSeen += pending.length;
      for (const r of resources.filter((x) => x.custom)) expect(r.id, `${r.urn} has an id`).toBeTruthy();
      for (const p of pending) expect(p.type).toBe('creating');
      // Every create this run began is either stored as finished or listed as pending.
      for (const c of creates().slice(before)) expect(stored.has(nameOf(c.urn)) || unfinished.has(nameOf(c.urn)), nameOf(c.urn)).toBe(true);
    }
    const killedAt = Date.now();
    const refreshed = await project.cli('refresh', '--yes', '--skip-preview', '--wait=60s');
    const freedAfterMs = Date.now() - killedAt;
    const up = await project.cli('up', '--yes', '--skip-preview');
    const final = await project.export();
    const things = (final.deployment.resources ?? []).filter((r) => r.type === 'testprov:index:Thing');
    const world = new Set(worldIds(project.world));

    expect(kills).toBe(KILLS);
    expect(pendingSeen).toBeGreaterThan(0);
    expect(waitedForKilledRun).toBeGreaterThan(0);
    expect(refreshed.status, refreshed.stderr).toBe(0);
    // The lease left by the last kill, plus the CLI's start-up and the refresh itself.
    expect(freedAfterMs).toBeLessThan(LEASE_MS + 8_000);
    expect(up.status, up.stderr).toBe(0);
    expect(things.map((r) => nameOf(r.urn)).sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `r${i}`).sort());
    for (const r of things) expect(world.has(r.id!), `${r.urn} exists in the provider's world`).toBe(true);
    expect(final.deployment.pending_operations ?? []).toEqual([]);
  });
});
