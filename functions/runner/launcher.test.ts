import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../test/support/service-fixture.js';
import { createDeploymentService, type DeploymentService } from '../../shared/core/deployments/deployment-service.js';
import { createRunnerService } from '../../shared/core/deployments/runner-service.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import { launchRun, type BuildStarter, type LauncherDeps } from './launcher.js';

const REF = { org: 'acme', project: 'app', stack: 'dev' };

let fx: ServiceFixture;
let alice: Principal;
let deployments: DeploymentService;

beforeEach(async () => {
  fx = await serviceFixture();
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  deployments = createDeploymentService(fx.deps);
  await deployments.patchSettings(alice, REF, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } });
});

afterEach(async () => {
  await fx.close();
});

function launcher(builds: BuildStarter): LauncherDeps {
  return {
    runner: createRunnerService(fx.deps, { claimMs: 60_000 }),
    deployments: fx.deps.storage.deployments,
    sealToken: async (runId, token) => `sealed(${runId}:${token.length})`,
    builds,
    log: () => {},
  };
}

async function queued(): Promise<{ runId: string; stackId: string; version: number }> {
  const { id, version } = await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
  const stackId = (await fx.deps.storage.stacks.get(REF)).id;
  return { runId: id, stackId, version };
}

describe('launchRun', () => {
  it('starts one build per queued run with the run id and its sealed token, and nothing for a repeated notice', async () => {
    // Arrange
    const started: Record<string, string>[] = [];
    const deps = launcher({ start: async (env) => (started.push(env), `build-${started.length}`) });
    const notice = await queued();

    // Act
    const first = await launchRun(deps, notice);
    const again = await launchRun(deps, notice);

    // Assert
    expect(first).toEqual({ kind: 'started', runId: notice.runId, buildId: 'build-1' });
    expect(again).toEqual({ kind: 'nothing' });
    expect(started).toEqual([{ STACKYARD_RUN_ID: notice.runId, STACKYARD_RUN_TOKEN_SEALED: expect.stringMatching(new RegExp(`^sealed\\(${notice.runId}:\\d+\\)$`)) }]);
    expect(await deployments.getRun(alice, REF, notice.runId)).toMatchObject({ status: 'running' });
  });

  it('fails the run, saying why, when CodeBuild refuses the build', async () => {
    const deps = launcher({ start: async () => Promise.reject(new Error('AccountLimitExceededException: too many builds')) });
    const notice = await queued();

    const result = await launchRun(deps, notice);

    expect(result).toEqual({ kind: 'nothing' });
    const run = await deployments.getRun(alice, REF, notice.runId);
    expect(run).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(run)).toContain('the runner build could not start: AccountLimitExceededException: too many builds');
  });
});
