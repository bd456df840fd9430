/**
 * Two runs on one stack through `stackyard serve`: the second fails naming the holder (or waits with `--wait` and
 * then succeeds), and `stackyard cancel` from a third process stops a run within about one lease renewal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, until } from '../cli/cli-harness.js';
import { E2eService, type E2eProject } from './e2e-harness.js';

const LEASE = { STACKYARD_LEASE_SECONDS: '4', STACKYARD_LEASE_RENEW_SECONDS: '1' };
const RENEW_MS = 1_000;
/** Each create takes this long, so a run of ten creates one at a time lasts several seconds. */
const CREATE_MS = 500;

describe('concurrent updates of one stack through `stackyard serve`', () => {
  let service: E2eService;
  let project: E2eProject;

  const createsSoFar = () => project.providerCalls().filter((c) => c.op === 'create').length;
  const useCount = async (count: number) => {
    await project.cli('config', 'set', 'count', String(count));
    await project.cli('config', 'set', 'delay', String(CREATE_MS));
  };

  beforeAll(async () => {
    service = await E2eService.start({ storage: 'local' });
    project = await service.project('many', 'test/e2e/fixtures/many', 'dev', LEASE);
  });

  afterAll(async () => {
    await service?.stop();
    removeSandboxes();
  });

  it('fails the second run with the holder, and lets a run with --wait through once the first is done', async () => {
    await useCount(8);
    const first = project.spawn(['up', '--yes', '--skip-preview', '--parallel', '1']);
    await until('the first run to create a resource', async () => (createsSoFar() > 0 ? true : undefined));

    const second = await project.cli('up', '--yes', '--skip-preview');
    const waiting = project.spawn(['up', '--yes', '--skip-preview', '--wait=60s']);
    const [firstCode, waitingCode] = await Promise.all([first.exited, waiting.exited]);

    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/Another update is currently in progress\. Update \S+ by admin started at/);
    expect(second.stderr).toContain('stackyard cancel');
    expect(firstCode, first.stderr).toBe(0);
    expect(waiting.stdout + waiting.stderr).toMatch(/waiting for update \S+ by admin/);
    expect(waitingCode, waiting.stderr).toBe(0);
    expect((await project.export()).deployment.resources?.filter((r) => r.type === 'testprov:index:Thing')).toHaveLength(8);
  });

  it('stops a run within about one renewal when `stackyard cancel` is run from another process', async () => {
    await useCount(20);
    const before = createsSoFar();
    const run = project.spawn(['up', '--yes', '--skip-preview', '--parallel', '1']);
    await until('the run to create a resource', async () => (createsSoFar() > before ? true : undefined));

    const cancelled = await project.cli('cancel', '--yes');
    const cancelledAt = Date.now();
    const code = await run.exited;
    const stoppedAfterMs = Date.now() - cancelledAt;
    const listed = JSON.parse((await project.cli('stack', 'ls', '--json')).stdout) as { updateInProgress?: boolean }[];

    expect(cancelled.status, cancelled.stderr).toBe(0);
    expect(code).not.toBe(0);
    expect(run.stderr + run.stdout).toContain('error: the update was cancelled or its lease expired');
    // One renewal interval, plus the create in progress finishing and the process winding down.
    expect(stoppedAfterMs).toBeLessThan(RENEW_MS + CREATE_MS + 3_000);
    expect(createsSoFar() - before).toBeLessThan(20);
    expect(listed[0]!.updateInProgress).toBe(false);
  });
});
