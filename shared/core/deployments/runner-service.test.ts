import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, PermissionDeniedError, UnauthorizedError } from '../errors.js';
import type { StackRef } from '../names.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';
import { createUpdateService } from '../updates/update-service.js';
import { DEPLOYMENT_ID_KEY } from '../updates/run-updates.js';
import { createDeploymentService, type DeploymentService } from './deployment-service.js';
import { createRunnerService, RunLostError, type RunnerService } from './runner-service.js';

const REF: StackRef = { org: 'acme', project: 'app', stack: 'dev' };
const OTHER: StackRef = { org: 'acme', project: 'app', stack: 'prod' };
const SETTINGS = {
  sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } },
  operationContext: { environmentVariables: { REGION: 'eu-west-1', DEPLOY_KEY: { secret: 'opened-for-the-runner' } } },
};

let fx: ServiceFixture;
let alice: Principal;
let deployments: DeploymentService;
let runner: RunnerService;

beforeEach(async () => {
  fx = await serviceFixture();
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  await fx.stacks.create(alice, OTHER);
  deployments = createDeploymentService(fx.deps);
  runner = createRunnerService(fx.deps, { claimMs: 10_000 });
  await deployments.patchSettings(alice, REF, SETTINGS);
});

afterEach(async () => {
  await fx.close();
});

describe('RunnerService.claim', () => {
  it('hands the run over running, with its source, its opened environment and a token for its stack alone', async () => {
    // Prepare
    const { id } = await deployments.createRun(alice, REF, { operation: 'update' }, 'api');

    // Act
    const claimed = await runner.claim('runner-1');

    // Assess
    expect(claimed?.run).toMatchObject({ id, status: 'running', claimedBy: 'runner-1' });
    expect(claimed?.source).toEqual({ repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' });
    expect(claimed?.environment).toEqual({ REGION: 'eu-west-1', DEPLOY_KEY: 'opened-for-the-runner' });
    const principal = await fx.identity.authenticate(claimed!.token);
    expect(principal).toMatchObject({ login: 'alice', orgs: ['acme'], admin: false, token: { kind: 'deployment', runId: id } });
    expect(JSON.stringify(await fx.snapshot())).not.toContain(claimed!.token);
    expect(await runner.claim('runner-2')).toBeUndefined();
    expect(claimed).toMatchObject({ remediateIfDriftDetected: false, deleteAfterDestroy: false });
  });

  it('opens a secret variable as last set, a new value replacing the sealed one', async () => {
    await deployments.patchSettings(alice, REF, { operationContext: { environmentVariables: { DEPLOY_KEY: { secret: 'rotated-value' } } } });
    await deployments.createRun(alice, REF, { operation: 'update' }, 'api');

    const claimed = await runner.claim('runner-1');

    expect(claimed?.environment.DEPLOY_KEY).toBe('rotated-value');
  });

  it("carries a scheduled run's options for the operation they belong to", async () => {
    const options = { deleteAfterDestroy: true, remediateIfDriftDetected: true, skipInstallDependencies: true };
    await deployments.createRun(alice, REF, { operation: 'destroy', operationContext: { options } }, 'schedule');

    const claimed = await runner.claim('runner-1');

    expect(claimed).toMatchObject({ deleteAfterDestroy: true, remediateIfDriftDetected: false, skipInstallDependencies: true });
  });

  it("lets the run's token run its stack's updates and read it, and nothing else", async () => {
    // Prepare
    await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
    const claimed = (await runner.claim('runner-1'))!;
    const token = await fx.identity.authenticate(claimed.token);

    // Act
    const stack = await fx.stacks.get(token, REF);

    // Assess
    expect(stack.stack).toBe('dev');
    await expect(fx.stacks.get(token, OTHER)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deployments.getSettings(token, REF)).resolves.toBeDefined();
    await expect(deployments.patchSettings(token, REF, { tag: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(fx.stacks.remove(token, REF, true)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(fx.stacks.create(token, { ...REF, stack: 'new' })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(fx.identity.createToken(token, { description: 'escape' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('RunnerService.finish', () => {
  it("records the outcome, and the run's token stops working", async () => {
    await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
    const claimed = (await runner.claim('runner-1'))!;

    const finished = await runner.finish('runner-1', claimed.run, { status: 'failed', failure: 'clone failed: no such repository' });

    expect(finished).toMatchObject({ status: 'failed', failure: 'clone failed: no such repository' });
    await expect(fx.identity.authenticate(claimed.token)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(runner.heartbeat('runner-1', claimed.run)).rejects.toBeInstanceOf(RunLostError);
  });
});

describe("a run's updates", () => {
  it('are recorded on the run when its token starts them, and name the run in their environment', async () => {
    await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
    const claimed = (await runner.claim('runner-1'))!;
    const token = await fx.identity.authenticate(claimed.token);
    const updates = createUpdateService(fx.deps);

    const { updateId } = await updates.create(token, REF, { kind: 'update', dryRun: false, environment: { 'exec.kind': 'cli' } });
    const started = await updates.start(token, REF, updateId, {});

    const run = await deployments.getRun(alice, REF, claimed.run.id);
    expect(run.updates).toEqual([{ id: updateId, updateID: updateId, version: started.version }]);
    expect((await fx.storage.updates.get(claimed.run.stackId, updateId)).environment).toEqual({ 'exec.kind': 'cli', [DEPLOYMENT_ID_KEY]: claimed.run.id });
  });
});

describe('RunnerService.recoverLost', () => {
  it('fails a run whose runner stopped heartbeating, once, cancelling its update and revoking its token', async () => {
    // Prepare
    await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
    const claimed = (await runner.claim('runner-1'))!;
    const token = await fx.identity.authenticate(claimed.token);
    const updates = createUpdateService(fx.deps);
    const { updateId } = await updates.create(token, REF, { kind: 'update', dryRun: false });
    await updates.start(token, REF, updateId, {});
    fx.advance(5_000);
    await runner.heartbeat('runner-1', claimed.run);
    fx.advance(8_000);
    expect(await runner.recoverLost('runner-2')).toBeUndefined();

    // Act
    fx.advance(5_000);
    const recovered = await runner.recoverLost('runner-2');

    // Assess
    expect(recovered).toMatchObject({ id: claimed.run.id, status: 'failed', claimedBy: 'runner-2' });
    expect(recovered?.failure).toMatch(/^runner lost/);
    expect((await fx.storage.updates.get(claimed.run.stackId, updateId)).status).toBe('cancelled');
    expect(await fx.storage.leases.current(claimed.run.stackId)).toBeUndefined();
    await expect(fx.identity.authenticate(claimed.token)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(runner.heartbeat('runner-1', claimed.run)).rejects.toBeInstanceOf(RunLostError);
    expect(await runner.recoverLost('runner-3')).toBeUndefined();
    const log = await deployments.readLogs(alice, REF, claimed.run.id, 0, 10);
    expect(log.lines.map((line) => line.line).join('\n')).toMatch(/runner lost/);
  });
});
