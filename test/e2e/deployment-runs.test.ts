/**
 * Deployment runs end to end: `stackyard serve --runners 1` (a runner worker process) runs queued runs from a loopback
 * git server — clone, `npm ci`, the bundled CLI with the run's own token — and records their logs, updates and
 * results: a run from a repository leaves the program's resources in the stack, a push through the example
 * post-receive hook (examples/git-push-webhook) starts exactly one update of the pushed commit, an unreachable repository fails as
 * `clone failed`, and cancelling a running run stops its CLI and cancels its update. A drift schedule's first run
 * comes at the next cron minute, so its test's actions start in `beforeAll` on a second serve (drift-schedule-proof.ts)
 * and wait for that minute while the other tests run.
 *
 * Offline installs: the program's only npm dependency is a package inside the repository (`file:./lib/greeting`), so
 * `npm ci` installs it from its lock file without any registry; `@pulumi/pulumi` comes from this repository's own
 * node_modules through NODE_PATH, set in the stack's deployment settings like any environment variable.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, REPO, until } from '../cli/cli-harness.js';
import { fastHookEnv, startReceiver, type Receiver } from '../hooks/hook-fixtures.js';
import { GitHttpServer } from '../support/git-http-server.js';
import { programFiles } from './run-program.js';
import { worldResource } from '../support/testprov-world.js';
import { DeploymentService, type RunView } from './deployment-service.js';
import { observeDriftSchedule, type DriftObservations } from './drift-schedule-proof.js';
import { E2eService } from './e2e-harness.js';

const STACK = '/api/stacks/admin/runapp/dev';

const PROGRAM = `'use strict';
const pulumi = require('@pulumi/pulumi');
const { greeting } = require('greeting');
new pulumi.CustomResource('testprov:index:Thing', 'deployed', { value: greeting() });
`;
const HANGING_PROGRAM = `'use strict';
const pulumi = require('@pulumi/pulumi');
new pulumi.CustomResource('testprov:index:Thing', 'kept', { value: 1 });
setInterval(() => {}, 1000);
`;

describe('deployment runs on serve --runners 1', () => {
  let deployments: DeploymentService;
  let service: E2eService;
  let git: GitHttpServer;
  let receiver: Receiver;
  let repoUrl: string;
  let world: string;
  let driftServe: DeploymentService | undefined;
  let driftProof: Promise<DriftObservations>;

  const api = (method: string, path: string, body?: unknown) => deployments.api(method, path, body);
  const queue = async (request: Record<string, unknown>) => (await api('POST', `${STACK}/deployments`, request)) as { id: string };
  const run = async (id: string) => (await api('GET', `${STACK}/deployments/${id}`)) as RunView;
  const ended = (id: string, timeoutMs = 120_000) => deployments.endedOn(STACK, id, timeoutMs);
  const logOf = (id: string) => deployments.logOf(STACK, id);

  beforeAll(async () => {
    git = new GitHttpServer();
    await git.start();
    repoUrl = git.repository('app', { main: programFiles(PROGRAM), hanging: programFiles(HANGING_PROGRAM) });
    world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
    receiver = await startReceiver();
    const env = fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true', STACKYARD_RUNNER_POLL_MS: '200', STACKYARD_RUNNER_CLAIM_SECONDS: '4', STACKYARD_SCHEDULER_TICK_MS: '500' });
    // The drift schedule's proof waits for a cron minute (up to 60 s): it runs from here on a serve and a repository of
    // its own, while the other tests run, and its test asserts what it saw.
    [deployments, driftServe] = await Promise.all([DeploymentService.start(env), DeploymentService.start(env)]);
    service = deployments.service;
    driftProof = observeDriftSchedule(driftServe, git.repository('drift', { main: programFiles(PROGRAM) }), receiver);
    driftProof.catch(() => undefined);
    await deployments.deployableStack('dev', repoUrl, world);
  }, 120_000);

  afterAll(async () => {
    await driftProof?.catch(() => undefined);
    await Promise.all([deployments?.stop(), driftServe?.stop()]);
    await git?.stop();
    await receiver?.stop();
    rmSync(world, { recursive: true, force: true });
    removeSandboxes();
  });

  it("runs an update from the repository: the stack holds the program's resources, the log and the update are the run's", async () => {
    const { id } = await queue({ operation: 'update' });

    const done = await ended(id);

    expect(done.failure).toBeUndefined();
    expect(done.status).toBe('succeeded');
    const exported = (await api('GET', `${STACK}/export`)) as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
    const thing = exported.deployment.resources?.find((r) => r.urn.endsWith('::deployed'));
    expect(thing?.outputs?.value).toBe('hello from the repository');
    const log = await logOf(id);
    expect(log).toContain('$ npm ci');
    expect(log).toContain('$ stackyard up --yes --wait --stack admin/runapp/dev --non-interactive');
    expect(log).toMatch(/\+ +testprov:index:Thing +deployed +created/);
    expect(log).not.toContain(deployments.adminToken);
    // `up` previews, then updates: both are the run's, and the update is in history naming the run.
    expect(done.updates).toHaveLength(2);
    const history = (await api('GET', `${STACK}/updates`)) as { updates: { version: number; environment: Record<string, string> }[] };
    expect(history.updates).toHaveLength(1);
    expect(history.updates[0]!.version).toBe(done.updates[1]!.version);
    expect(history.updates[0]!.environment['stackyard.deployment.id']).toBe(id);
  }, 150_000);

  it('is driven by stackyard deployment settings edit|get|destroy, run, ls and log', async () => {
    await api('POST', '/api/stacks/admin/runapp', { stackName: 'cli' });
    const cli = (...args: string[]) => service.sandbox.run(service.sandbox.root, [...args, '--stack', 'admin/runapp/cli']);
    const edit = await cli('deployment', 'settings', 'edit', '--git-url', repoUrl, '--branch', 'main', '--env', `NODE_PATH=${join(REPO, 'node_modules')}`,
      '--env', `TESTPROV_WORLD=${world}`, '--secret-env', 'API_KEY=kept-secret', '--delete-after-destroy');
    expect(edit.stderr).toBe('');
    expect(edit.stdout).toContain("Deployment settings of 'admin/runapp/cli' updated.");
    const settings = JSON.parse((await cli('deployment', 'settings', 'get')).stdout);
    expect(settings.sourceContext.git).toEqual({ repoUrl, branch: 'main' });
    expect(Object.keys(settings.operationContext.environmentVariables.API_KEY)).toEqual(['ciphertext']);
    expect(settings.operationContext.options).toEqual({ deleteAfterDestroy: true });

    const run = await cli('deployment', 'run', 'update', '--suppress-stream-logs=false');

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Preparing deployment\.\.\.\n\nView Live: http:\/\/127\.0\.0\.1:\d+\/admin\/runapp\/cli\/deployments\/1\n/);
    expect(run.stdout).toContain('$ npm ci');
    expect(run.stdout).toMatch(/\+ +testprov:index:Thing +deployed +created/);
    const runs = (await api('GET', '/api/stacks/admin/runapp/cli/deployments')) as { deployments: { initiator: string }[] };
    expect(runs.deployments.map((d) => d.initiator)).toEqual(['automation-api']);
    const listed = await cli('deployment', 'ls');
    expect(listed.stdout).toMatch(/^1 +[0-9a-f-]{36} +update +succeeded /m);
    expect(listed.stdout).toContain('Showing 1 of 1 deployment(s)');
    expect((await cli('deployment', 'log', '#1')).stdout).toContain('$ stackyard up --yes --wait --stack admin/runapp/cli --non-interactive');
    const failed = await cli('deployment', 'run', 'update', `${git.url}/missing.git`, '--inherit-settings=false', '--git-branch', 'main', '--suppress-stream-logs=false');
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/deployment failed/);
    expect(failed.stderr).toMatch(/clone failed/);
    const refused = await cli('deployment', 'run', 'update', '--git-auth-ssh-private-key', 'k', '--git-auth-ssh-private-key-path', '/k');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('`--git-auth-ssh-private-key` and `--git-auth-ssh-private-key-path` cannot both be specified');
    expect((await cli('deployment', 'settings', 'destroy', '--yes')).status).toBe(0);
    expect(JSON.parse((await cli('deployment', 'settings', 'get')).stdout)).toEqual({});
  }, 200_000);

  it('starts exactly one update for a push to the watched branch, through the example post-receive hook', async () => {
    const pushed = '/api/stacks/admin/runapp/pushed';
    const secret = 'e2e-push-webhook-secret';
    await api('POST', '/api/stacks/admin/runapp', { stackName: 'pushed' });
    await api('POST', `${pushed}/deployments/settings`, {
      sourceContext: { git: { repoUrl, branch: 'main' } },
      gitHub: { paths: ['lib/**'] },
      operationContext: { environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world } },
      pushWebhook: { secret: { secret } },
    });
    const bare = join(git.root, 'app.git');
    // The dumb-HTTP server needs its ref list refreshed before the run clones, so that comes first.
    copyFileSync(join(REPO, 'examples/git-push-webhook/post-receive'), join(bare, 'hooks/stackyard-post-receive'));
    writeFileSync(join(bare, 'hooks/post-receive'), '#!/bin/sh\ngit update-server-info\nexec "$(dirname "$0")/stackyard-post-receive"\n', { mode: 0o755 });
    const work = mkdtempSync(join(tmpdir(), 'stackyard-push-'));
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com',
      STACKYARD_WEBHOOK_URL: `${deployments.url}/api/webhooks/git/admin/runapp/pushed`, STACKYARD_WEBHOOK_SECRET: secret };
    const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const runsOf = async () => ((await api('GET', `${pushed}/deployments`)) as { deployments: (RunView & { initiator: string })[] }).deployments;
    try {
      gitIn('clone', '--quiet', bare, '.');
      writeFileSync(join(work, 'README.md'), 'outside the path filter\n');
      gitIn('add', 'README.md');
      gitIn('commit', '--quiet', '-m', 'docs only');
      gitIn('push', '--quiet', 'origin', 'main');
      expect(await runsOf()).toEqual([]);
      writeFileSync(join(work, 'lib/greeting/index.js'), "exports.greeting = () => 'hello from a push';\n");
      gitIn('commit', '--quiet', '-am', 'new greeting');
      const commit = gitIn('rev-parse', 'HEAD').trim();

      gitIn('push', '--quiet', 'origin', 'main');
      const [queued] = await until('the push to queue a run', async () => ((await runsOf()).length > 0 ? runsOf() : undefined));
      const done = await until('the pushed run to end', async () => {
        const view = (await api('GET', `${pushed}/deployments/${queued!.id}`)) as RunView;
        return view.status === 'succeeded' || view.status === 'failed' ? view : undefined;
      }, 120_000);

      expect(done.failure).toBeUndefined();
      expect(done.status).toBe('succeeded');
      expect(await runsOf()).toHaveLength(1);
      expect(queued!.initiator).toBe('webhook:git');
      const log = ((await api('GET', `${pushed}/deployments/${queued!.id}/logs`)) as { lines: { line: string }[] }).lines.map((l) => l.line);
      expect(log).toContain(`$ git checkout ${commit}`);
      const exported = (await api('GET', `${pushed}/export`)) as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
      expect(exported.deployment.resources?.find((r) => r.urn.endsWith('::deployed'))?.outputs?.value).toBe('hello from a push');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 150_000);

  it('fails a run whose repository cannot be cloned with clone failed', async () => {
    const { id } = await queue({ operation: 'update', sourceContext: { git: { repoUrl: `${git.url}/missing.git`, branch: 'main' } } });

    const done = await ended(id);

    expect(done.status).toBe('failed');
    expect(done.failure).toMatch(/^clone failed: /);
    expect(await logOf(id)).toContain(`$ git clone ${git.url}/missing.git --branch main`);
  }, 150_000);

  it('recovers the run of a runner that died as failed (runner lost), with its update cancelled', async () => {
    const { id } = await queue({ operation: 'update', sourceContext: { git: { repoUrl, branch: 'hanging' } } });
    await until('the run to start its update', async () => ((await run(id)).updates.length > 0 ? true : undefined), 120_000);
    const [worker] = runnerWorkers(service.serve!.dataDir);

    process.kill(worker!, 'SIGKILL');
    const done = await ended(id, 60_000);

    expect(done.status).toBe('failed');
    expect(done.failure).toMatch(/^runner lost: /);
    expect(((await api('GET', STACK)) as { activeUpdate: string }).activeUpdate).toBe('');
    expect(runnerWorkers(service.serve!.dataDir)).toHaveLength(1);
  }, 200_000);

  it('a drift schedule reports a resource changed out of band within one period, to a hook too, and remediates it', async () => {
    const seen = await driftProof;

    expect(seen.hookAdded).toBe(0);
    expect(seen.run.initiator).toBe('schedule');
    expect(Date.parse(seen.run.created) - seen.scheduledAt).toBeLessThan(61_000);
    expect(seen.done.failure).toBeUndefined();
    const [drift] = seen.driftRuns;
    expect(drift).toMatchObject({ driftDetected: true, deploymentId: seen.run.id, resources: [{ urn: seen.thing.urn, change: 'update', properties: ['value'] }] });
    expect(drift!.remediateUpdate).toMatchObject({ updateId: seen.done.updates.at(-1)!.updateID, status: 'succeeded', resourceChanges: { update: 1 } });
    expect(seen.valueAfterRun).toBe(seen.deployedValue);
    expect(seen.log).toContain('$ stackyard up --refresh --yes --wait --stack admin/runapp/drift --non-interactive');
    expect(JSON.parse(seen.delivery.body)).toMatchObject({ event: 'drift_detected', driftRunId: drift!.id, resources: drift!.resources });
    expect(seen.driftList).toMatch(new RegExp(`^${drift!.id} +\\S+ +succeeded +yes +succeeded \\(1 update\\) +succeeded \\(1 update\\)$`, 'm'));
  }, 240_000);

  it('a TTL schedule destroys its stack at its time, within a scheduler tick, and then removes it', async () => {
    const TTL = '/api/stacks/admin/runapp/ttl';
    await deployments.deployableStack('ttl', repoUrl, world);
    const thing = await deployments.deployed(TTL);
    const at = Date.now() + 2_000;

    await api('POST', `${TTL}/deployments/ttl/schedules`, { timestamp: new Date(at).toISOString(), deleteAfterDestroy: true });
    const run = await deployments.firstRun(TTL, 'destroy', 30_000);
    await until('the stack to be removed', async () => ((await fetch(`${deployments.url}${TTL}`, { headers: { authorization: `token ${deployments.adminToken}` } })).status === 404 ? true : undefined), 120_000);

    expect(Date.parse(run.created)).toBeGreaterThanOrEqual(at);
    expect(Date.parse(run.created) - at).toBeLessThan(500 + 1_000);
    expect(worldResource(world, thing.id)).toBeUndefined();
    const audit = (await api('GET', '/api/orgs/admin/auditlogs?eventType=stack.deleted')) as { auditLogEvents: { target: string; user: { githubLogin: string }; description: string }[] };
    const deleted = audit.auditLogEvents.find((e) => e.target === 'admin/runapp/ttl');
    expect(deleted?.user.githubLogin).toBe(`deployment:${run.id}`);
    expect(deleted?.description).toContain('after destroying it');
  }, 200_000);

  it("cancels a running run: its CLI stops and its update is cancelled, so the stack's lease is free", async () => {
    const { id } = await queue({ operation: 'update', sourceContext: { git: { repoUrl, branch: 'hanging' } } });
    await until('the run to start its update', async () => ((await run(id)).updates.length > 0 ? true : undefined), 120_000);

    await api('POST', `${STACK}/deployments/${id}/cancel`);
    const done = await ended(id, 60_000);

    expect(done.status).toBe('failed');
    expect(done.failure).toMatch(/^cancelled/);
    const stack = (await api('GET', STACK)) as { activeUpdate: string };
    expect(stack.activeUpdate).toBe('');
    expect(await logOf(id)).toContain('The run was cancelled');
  }, 200_000);
});

/** Runner worker processes of the serve with this data folder (from `ps`). */
function runnerWorkers(dataDir: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('--runner-worker') && line.includes(dataDir))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('runner workers live and die with serve', () => {
  it('starts --runners N workers, and they stop by themselves when serve is killed', async () => {
    const service = await E2eService.start({ storage: 'local', args: ['--runners', '2'] });
    try {
      await until('two runner workers', async () => (runnerWorkers(service.serve!.dataDir).length === 2 ? true : undefined));

      service.serve!.signal('SIGKILL');

      await until('the workers to stop', async () => (runnerWorkers(service.serve!.dataDir).length === 0 ? true : undefined));
    } finally {
      await service.stop();
    }
  }, 60_000);
});
