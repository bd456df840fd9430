/**
 * A stack whose `up` crashed, through `stackyard serve`: while the crashed run's lease is live a preview names its
 * holder, start and expiry; once it has expired, `preview` and `up` (with or without its preview) say what is true —
 * the stack has pending operations, run `refresh` or `state repair` — as on `login --local`, and a refused `up`
 * adds no version to history; an `up --wait` started while the lease is live waits it out, then says the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, until } from '../cli/cli-harness.js';
import { E2eService, type E2eProject } from './e2e-harness.js';

/** Long enough for a preview to meet the crashed run's live lease. */
const LEASE = { STACKYARD_LEASE_SECONDS: '6', STACKYARD_LEASE_RENEW_SECONDS: '1' };
const PENDING = /error: the stack has 1 pending operation left by an update that was interrupted:\n {4}creating \S+::r\d\n.*Run `stackyard refresh`/;

describe('the service after a crashed `up`', () => {
  let service: E2eService;
  let project: E2eProject;

  beforeAll(async () => {
    service = await E2eService.start({ storage: 'local' });
    project = await service.project('many', 'test/e2e/fixtures/many', 'dev', LEASE);
    await project.cli('config', 'set', 'count', '1');
    // the create never finishes within the test
    await project.cli('config', 'set', 'delay', '600000');
  });

  afterAll(async () => {
    await service?.stop();
    removeSandboxes();
  });

  it('names the live holder, then says the stack has pending operations, and a refused up adds no version', async () => {
    const run = project.spawn(['up', '--yes', '--skip-preview']);
    await until('the create to be pending', async () => ((await project.export()).deployment.pending_operations?.length ? true : undefined));
    await run.kill();

    const live = await project.cli('preview');
    await new Promise((r) => setTimeout(r, Number(LEASE.STACKYARD_LEASE_SECONDS) * 1000));
    const history = async () => JSON.parse((await project.cli('stack', 'history', '--json')).stdout) as { version: number; result: string }[];
    const before = await history();
    const preview = await project.cli('preview');
    const up = await project.cli('up', '--yes');
    const skipped = await project.cli('up', '--yes', '--skip-preview');
    const after = await history();

    expect(live.status).toBe(1);
    expect(live.stderr).toMatch(/Another update is currently in progress\. Update \S+ by admin started at \S+Z and holds the stack until \S+Z/);
    for (const refused of [preview, up, skipped]) {
      expect(refused.status).toBe(1);
      expect(refused.stdout + refused.stderr).toMatch(PENDING);
      expect(refused.stdout + refused.stderr).not.toContain('Conflict');
    }
    expect(after).toEqual(before);
  });

  it('up --wait started while the crashed run holds the lease waits it out, then says what is true and adds no version', async () => {
    // Arrange: a second stack whose `up` crashed with its create pending.
    const crashed = await service.project('waits', 'test/e2e/fixtures/many', 'dev', LEASE);
    await crashed.cli('config', 'set', 'count', '1');
    await crashed.cli('config', 'set', 'delay', '600000');
    const run = crashed.spawn(['up', '--yes', '--skip-preview']);
    await until('the create to be pending', async () => ((await crashed.export()).deployment.pending_operations?.length ? true : undefined));
    await run.kill();
    const versions = async () => (JSON.parse((await crashed.cli('stack', 'history', '--json')).stdout) as { version: number }[]).map((u) => u.version);
    const before = await versions();

    // Act: both forms of `up --wait`, while the lease is live.
    const waiters = [crashed.spawn(['up', '--yes', '--skip-preview', '--wait']), crashed.spawn(['up', '--yes', '--wait'])];
    const codes = await Promise.all(waiters.map((waiter) => waiter.exited));
    const after = await versions();

    // Assess
    for (const [i, waiter] of waiters.entries()) {
      const shown = waiter.stdout + waiter.stderr;
      expect(codes[i], shown).toBe(1);
      expect(shown).toMatch(/waiting for update \S+ by admin \(started \S+Z, lease held until \S+Z\)/);
      expect(shown).toMatch(PENDING);
      expect(shown).not.toContain('Conflict');
    }
    expect(after).toEqual(before);
  }, 120_000);
});
