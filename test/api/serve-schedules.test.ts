/**
 * Scheduled deployments on `stackyard serve`, as the `pulumi` CLI's client calls them (ListStackSchedules,
 * CreateStackSchedule, CreateStackDriftSchedule, CreateStackTTLSchedule, UpdateStack…Schedule, DeleteStackSchedule)
 * and pause/resume from Pulumi Cloud's REST reference: Pulumi's `ScheduledAction` shapes, a stack without deployment
 * settings refused with what to configure, and serve's scheduler queuing the run of a one-time and a TTL schedule
 * within a tick of their time, once, attributed to the schedule in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from '../cli/cli-harness.js';
import { eventually } from '../hooks/hook-fixtures.js';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack } from './wire-fixtures.js';

const STACK = '/api/stacks/acme/app/dev';
const SCHEDULES = `${STACK}/deployments/schedules`;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

describe('deployment schedules through `stackyard serve`', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  const call = (method: string, path: string, body?: object) => wire.call(method, path, { auth: { token: serve.adminToken }, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    serve = await startServe({ storage: 'local', env: { STACKYARD_SCHEDULER_TICK_MS: '100' } });
    wire = new PulumiWire(serve.url);
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'dev' });
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    removeSandboxes();
  });

  it('refuses a schedule of a stack without deployment settings, saying what to configure', async () => {
    const message = failed(await call('POST', `${STACK}/deployments/drift/schedules`, { scheduleCron: '0 * * * *', autoRemediate: false }), 400);

    expect(message).toContain('has no deployment settings');
    expect(message).toContain('POST …/deployments/settings');
    expect(ok(await call('GET', SCHEDULES))).toEqual({ schedules: [] });
  });

  it('creates raw, drift and TTL schedules in Pulumi Cloud shapes, lists, reads, edits, pauses, resumes and removes them', async () => {
    ok(await call('POST', `${STACK}/deployments/settings`, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } }));

    const raw = ok(await call('POST', SCHEDULES, { scheduleCron: '0 */4 * * *', request: { operation: 'refresh', inheritSettings: true } }));
    const drift = ok(await call('POST', `${STACK}/deployments/drift/schedules`, { scheduleCron: '30 2 * * *', autoRemediate: true }));
    const ttl = ok(await call('POST', `${STACK}/deployments/ttl/schedules`, { timestamp: '2099-01-01T00:00:00Z', deleteAfterDestroy: true }));

    expect(raw).toMatchObject({ scheduleCron: '0 */4 * * *', paused: false, kind: 'deployment', definition: { request: { operation: 'refresh' } } });
    expect(new Date(raw.nextExecution).getUTCHours() % 4).toBe(0);
    expect(drift.definition.request).toEqual({ operation: 'detect-drift', inheritSettings: true, operationContext: { options: { remediateIfDriftDetected: true } } });
    expect(drift.nextExecution).toMatch(/T02:30:00\.000Z$/);
    expect(ttl).toMatchObject({ scheduleOnce: '2099-01-01T00:00:00.000Z', nextExecution: '2099-01-01T00:00:00.000Z' });
    expect(ttl.definition.request).toEqual({ operation: 'destroy', inheritSettings: true, operationContext: { options: { deleteAfterDestroy: true } } });
    expect(ok(await call('GET', SCHEDULES)).schedules.map((s: { id: string }) => s.id)).toEqual([raw.id, drift.id, ttl.id]);
    expect(ok(await call('GET', `${SCHEDULES}/${drift.id}`))).toEqual(drift);

    const edited = ok(await call('POST', `${STACK}/deployments/drift/schedules/${drift.id}`, { scheduleCron: '0 3 * * *', autoRemediate: false }));
    const paused = ok(await call('POST', `${SCHEDULES}/${raw.id}/pause`));
    const resumed = ok(await call('POST', `${SCHEDULES}/${raw.id}/resume`));

    expect(edited).toMatchObject({ id: drift.id, scheduleCron: '0 3 * * *' });
    expect(edited.definition.request.operationContext.options.remediateIfDriftDetected).toBe(false);
    expect(paused.paused).toBe(true);
    expect(resumed).toMatchObject({ paused: false, nextExecution: raw.nextExecution });
    failed(await call('POST', `${STACK}/deployments/ttl/schedules/${drift.id}`, { timestamp: '2099-01-01T00:00:00Z' }), 400);
    ok(await call('DELETE', `${SCHEDULES}/${ttl.id}`), 204);
    failed(await call('GET', `${SCHEDULES}/${ttl.id}`), 404);
    for (const id of [raw.id, drift.id]) ok(await call('DELETE', `${SCHEDULES}/${id}`), 204);
  });

  it('refuses malformed schedules with what is wrong, and stores nothing', async () => {
    const badCron = failed(await call('POST', SCHEDULES, { scheduleCron: '0 */4 * *', request: { operation: 'update' } }), 400);
    const both = failed(await call('POST', SCHEDULES, { scheduleCron: '0 * * * *', scheduleOnce: inSeconds(60), request: { operation: 'update' } }), 400);
    const driftOp = failed(await call('POST', SCHEDULES, { scheduleCron: '0 * * * *', request: { operation: 'detect-drift' } }), 400);
    const past = failed(await call('POST', `${STACK}/deployments/ttl/schedules`, { timestamp: '2001-01-01T00:00:00Z' }), 400);

    expect(badCron).toContain('has 4 field(s), not 5');
    expect(both).toContain('exactly one of scheduleCron and scheduleOnce');
    expect(driftOp).toContain('drift/schedules');
    expect(past).toContain('must be in the future');
    expect(ok(await call('GET', SCHEDULES))).toEqual({ schedules: [] });
  });

  it('is driven by stackyard stack schedule new|ls|get|edit|pause|resume|rm, in `pulumi stack schedule`\'s words', async () => {
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'cli' });
    const sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken });
    const cli = (...args: string[]) => sandbox.run(sandbox.root, ['stack', 'schedule', ...args, '--stack', 'acme/app/cli']);
    const unset = await cli('new', '--kind', 'drift', '--cron', '0 */4 * * *');
    ok(await call('POST', '/api/stacks/acme/app/cli/deployments/settings', { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } }));

    const drift = JSON.parse((await cli('new', '--kind', 'drift', '--cron', '0 */4 * * *', '--auto-remediate', '--output', 'json')).stdout);
    const ttl = await cli('new', '--kind', 'ttl', '--once', '2099-01-01T01:00:00+01:00', '--delete-after-destroy');
    const ttlId = /^ID: +(\S+)$/m.exec(ttl.stdout)![1]!;
    const both = await cli('new', '--kind', 'raw', '--operation', 'refresh', '--cron', '0 * * * *', '--once', '2099-01-01T00:00:00Z');
    const noOperation = await cli('new', '--kind', 'raw', '--cron', '0 * * * *');
    const edited = JSON.parse((await cli('edit', drift.id, '--auto-remediate=false', '--cron', '0 3 * * *', '--output', 'json')).stdout);
    const wrongKind = await cli('edit', ttlId, '--cron', '0 3 * * *');
    await cli('pause', drift.id);
    const listed = (await cli('ls')).stdout;
    const resumed = await cli('resume', drift.id);
    const unconfirmed = await cli('rm', ttlId);
    const removed = await cli('remove', ttlId, '--yes');

    expect(unset.status).toBe(1);
    expect(unset.stderr).toContain('has no deployment settings');
    expect(unset.stderr).toContain("'stackyard deployment settings edit --git-url <repository> --branch <branch>'");
    expect(drift).toMatchObject({ type: 'drift', settings: 'detect + auto-remediate', schedule: '0 */4 * * *', paused: false });
    expect(ttl.stdout).toMatch(/^Type: +ttl\nSettings: +destroy \+ delete stack\nSchedule: +Once\nNext run: +2099-01-01T00:00:00\.000Z\nLast run: +\(never\)$/m);
    expect(both.stderr).toContain('if any flags in the group [cron once] are set none of the others can be');
    expect(noOperation.stderr).toContain('--operation is required for --kind=raw');
    expect(edited).toMatchObject({ id: drift.id, type: 'drift', settings: 'detect', schedule: '0 3 * * *' });
    expect(wrongKind.stderr).toContain('--cron is not valid for ttl schedules; use --once');
    expect(listed).toMatch(/^ID +TYPE +SETTINGS +SCHEDULE +NEXT RUN +LAST RUN +CREATED$/m);
    expect(listed).toMatch(new RegExp(`^${drift.id} +drift +detect \\(paused\\) +0 3 \\* \\* \\* +\\S+T03:00:00\\.000Z`, 'm'));
    expect(resumed.stdout).toMatch(new RegExp(`^Schedule '${drift.id}' is resumed; next run: \\S+T03:00:00\\.000Z\\.$`, 'm'));
    expect(unconfirmed.status).toBe(1);
    expect(unconfirmed.stderr).toContain('--yes must be passed in to proceed');
    expect(removed.stdout).toBe(`Schedule '${ttlId}' has been removed.\n`);
    expect((await cli('get', ttlId)).status).toBe(1);
    expect(JSON.parse((await cli('ls', '--output', 'json')).stdout).schedules.map((s: { id: string }) => s.id)).toEqual([drift.id]);
  });

  it('queues the run of a one-time and of a TTL schedule once their time comes, once each, audited as the schedule', async () => {
    const once = ok(await call('POST', SCHEDULES, { scheduleOnce: inSeconds(1), request: { operation: 'update' } }));
    const ttl = ok(await call('POST', `${STACK}/deployments/ttl/schedules`, { timestamp: inSeconds(1), deleteAfterDestroy: true }));

    const runs = await eventually('both scheduled runs', async () => {
      const listed = ok(await call('GET', `${STACK}/deployments`)).deployments as { pulumiOperation: string; initiator: string }[];
      return listed.length >= 2 ? listed : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(ok(await call('GET', `${STACK}/deployments`)).deployments).toHaveLength(2);
    expect(runs.map((r) => [r.pulumiOperation, r.initiator]).sort()).toEqual([
      ['destroy', 'schedule'],
      ['update', 'schedule'],
    ]);
    const fired = ok(await call('GET', `${SCHEDULES}/${once.id}`));
    expect(fired.nextExecution).toBeUndefined();
    expect(fired.lastExecuted).toBe(once.scheduleOnce);
    expect(ok(await call('GET', `${SCHEDULES}/${ttl.id}`)).lastExecuted).toBe(ttl.scheduleOnce);
    const audit = ok(await call('GET', '/api/orgs/acme/auditlogs')).auditLogEvents as { event: string; user: { githubLogin: string } }[];
    const queued = audit.filter((e) => e.event === 'deployment.queued').map((e) => e.user.githubLogin).sort();
    expect(queued).toEqual([`schedule:${once.id}`, `schedule:${ttl.id}`].sort());
  });
});
