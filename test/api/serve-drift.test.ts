/**
 * Drift runs on `stackyard serve`: a `stackyard refresh --preview-only` by a user is a drift run, as in Pulumi Cloud;
 * a resource changed or deleted behind Pulumi's back (the test provider's world edited out of band) is listed with
 * the properties that changed (`GET …/drift/runs`, `…/drift/status` as the `pulumi` CLI's client calls them), and
 * a `drift_detected` hook delivery names it. Needs `npm run build`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, TESTPROV_DIR, removeSandboxes, type CliResult } from '../cli/cli-harness.js';
import { eventually, fastHookEnv, startReceiver, type Receiver } from '../hooks/hook-fixtures.js';
import { changeInWorld, deleteFromWorld, worldIds, worldResource } from '../support/testprov-world.js';
import { ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';

const program =
  "const pulumi = require('@pulumi/pulumi');\n" +
  "new pulumi.CustomResource('testprov:index:Thing', 'one', { value: 1, label: 'a' });\n" +
  "new pulumi.CustomResource('testprov:index:Thing', 'two', { value: 2 });\n";

const STACK = '/api/stacks/admin/app/dev';

function succeeded(result: CliResult): CliResult {
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

describe('drift runs through `stackyard serve`', () => {
  let serve: ServeProcess;
  let receiver: Receiver;
  let wire: PulumiWire;
  let sandbox: CliSandbox;
  let project: string;
  let world: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const get = async (path: string) => ok(await wire.call('GET', path, { auth: { token: serve.adminToken } }));

  beforeAll(async () => {
    receiver = await startReceiver();
    serve = await startServe({ storage: 'local', env: fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true' }) });
    wire = new PulumiWire(serve.url);
    sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken });
    world = join(sandbox.root, 'world');
    sandbox.env.TESTPROV_WORLD = world;
    mkdirSync(world);
    project = sandbox.project('app', `name: app\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
      'index.js': program,
    });
    succeeded(await cli('stack', 'init', 'dev'));
    succeeded(await cli('hook', 'add', 'drift', '--url', `${receiver.url}/ok/drift`, '--events', 'drift_detected'));
    succeeded(await cli('hook', 'add', 'slack', '--url', `${receiver.url}/ok/slack`, '--events', 'drift_detected', '--format', 'slack'));
    succeeded(await cli('hook', 'add', 'teams', '--url', `${receiver.url}/ok/teams`, '--events', 'drift_detected', '--format', 'ms_teams'));
    succeeded(await cli('up', '--yes', '--skip-preview'));
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await receiver?.stop();
    removeSandboxes();
  });

  it('has no drift run before any preview of a refresh', async () => {
    expect(await get(`${STACK}/drift/status`)).toEqual({ driftDetected: false, latestDriftRun: '', runInProgress: false });
    expect(await get(`${STACK}/drift/runs`)).toEqual({ driftRuns: [], itemsPerPage: 10, total: 0 });
  });

  it('records a refresh --preview-only that finds nothing changed as a run without drift', async () => {
    succeeded(await cli('refresh', '--preview-only'));

    const listed = await get(`${STACK}/drift/runs`);

    expect(listed.total).toBe(1);
    expect(listed.driftRuns[0]).toMatchObject({ driftDetected: false, status: 'succeeded', resources: [] });
    expect(listed.driftRuns[0].detectUpdate).toMatchObject({ updateId: listed.driftRuns[0].id, status: 'succeeded' });
  });

  it('names the resources changed and deleted out of band, and the changed properties; a hook hears of it', async () => {
    const [oneId, twoId] = worldIds(world).sort((a, b) => Number(worldResource(world, a)!.value) - Number(worldResource(world, b)!.value));
    changeInWorld(world, oneId!, { ...worldResource(world, oneId!)!, label: 'changed by hand' });
    deleteFromWorld(world, twoId!);

    succeeded(await cli('refresh', '--preview-only'));
    const listed = await get(`${STACK}/drift/runs?page=1&pageSize=1`);
    const status = await get(`${STACK}/drift/status`);

    expect(listed.total).toBe(2);
    expect(listed.itemsPerPage).toBe(1);
    const [run] = listed.driftRuns;
    expect(run).toMatchObject({ driftDetected: true, status: 'succeeded' });
    expect(run.resources).toEqual([
      { urn: 'urn:pulumi:dev::app::testprov:index:Thing::one', type: 'testprov:index:Thing', change: 'update', properties: ['label'] },
      { urn: 'urn:pulumi:dev::app::testprov:index:Thing::two', type: 'testprov:index:Thing', change: 'delete', properties: [] },
    ]);
    expect(status).toEqual({ driftDetected: true, latestDriftRun: run.id, runInProgress: false });
    const [delivery] = await eventually('the drift_detected delivery', async () => {
      const received = (await receiver.received()).filter((request) => request.path === '/ok/drift');
      return received.length > 0 ? received : undefined;
    });
    const payload = JSON.parse(delivery!.body);
    expect(delivery!.headers['pulumi-webhook-kind']).toBe('drift_detection');
    expect(payload).toMatchObject({ event: 'drift_detected', projectName: 'app', stackName: 'dev', driftRunId: run.id, resourceCount: 2 });
    expect(payload.resources).toEqual(run.resources);
  });

  it('writes the drift_detected delivery as a Slack message and a Microsoft Teams card for hooks of those formats', async () => {
    const bodyAt = (path: string) =>
      eventually(`the delivery at ${path}`, async () => (await receiver.received()).find((request) => request.path === path)?.body);

    const slack = JSON.parse(await bodyAt('/ok/slack'));
    const teams = JSON.parse(await bodyAt('/ok/teams'));

    expect(slack.text).toMatch(/^\*<http:\/\/[^|]+\/admin\/app\/dev\/drift\|admin\/app\/dev: drift detected \(admin\)>\*\n/);
    expect(slack.text).toContain('• changed: one (testprov:index:Thing) — label');
    expect(slack.text).toContain('• deleted: two (testprov:index:Thing)');
    expect(teams).toMatchObject({ '@type': 'MessageCard', title: 'admin/app/dev: drift detected (admin)' });
    expect(teams.text).toBe('changed: one (testprov:index:Thing) — label<br>deleted: two (testprov:index:Thing)');
    const hooks = JSON.parse(succeeded(await cli('hook', 'ls', '--json')).stdout) as { name: string; destination: { format?: string } }[];
    expect(Object.fromEntries(hooks.map((h) => [h.name, h.destination.format ?? 'raw']))).toEqual({ drift: 'raw', slack: 'slack', teams: 'ms_teams' });
  });

  it('shows the runs and the status with stackyard stack drift ls|status, as `pulumi stack drift` does', async () => {
    const newest = (await get(`${STACK}/drift/runs`)).driftRuns[0];

    const table = succeeded(await cli('stack', 'drift', 'ls', '--count', '1')).stdout;
    const listed = JSON.parse(succeeded(await cli('stack', 'drift', 'list', '--all', '--output', 'json')).stdout);
    const status = succeeded(await cli('stack', 'drift', 'status')).stdout;
    const both = await cli('stack', 'drift', 'ls', '--all', '--count', '2');

    expect(table).toMatch(/^ID +CREATED +STATUS +DRIFT +DETECT +REMEDIATE\n/);
    expect(table).toMatch(new RegExp(`^${newest.id} +\\S+ +succeeded +yes +succeeded \\(1 delete, 1 update\\) +-$`, 'm'));
    expect(table).toContain('Showing 1 of 2 drift run(s)');
    expect(listed).toMatchObject({ count: 2, total: 2 });
    expect(listed.driftRuns[0].resources.map((r: { properties: string[] }) => r.properties)).toEqual([['label'], []]);
    expect(status).toBe(`Drift detected:    yes\nLatest drift run:  ${newest.id}\nRun in progress:   no\n`);
    expect(both.status).toBe(1);
    expect(both.stderr).toContain('--all and --count are mutually exclusive');
  });

  it('refuses a page size out of range with a 400 that names it', async () => {
    const response = await wire.call('GET', `${STACK}/drift/runs?pageSize=500`, { auth: { token: serve.adminToken } });

    expect(response.status).toBe(400);
    expect(response.json.message).toContain('pageSize must be from 1 to 100');
  });
});
