import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createDeploymentService, type DeploymentService } from './deployment-service.js';
import { createRunAgentService, type RunAgentService } from './run-agent.js';
import { createRunnerService } from './runner-service.js';

const REF = { org: 'acme', project: 'app', stack: 'dev' };
const SETTINGS = {
  sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main', gitAuth: { accessToken: { secret: 'repo-token' } } } },
  operationContext: { environmentVariables: { DEPLOY_KEY: { secret: 'for-the-runner' } } },
};

let fx: ServiceFixture;
let alice: Principal;
let deployments: DeploymentService;
let agent: RunAgentService;

beforeEach(async () => {
  fx = await serviceFixture();
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  deployments = createDeploymentService(fx.deps);
  agent = createRunAgentService(fx.deps);
  await deployments.patchSettings(alice, REF, SETTINGS);
});

afterEach(async () => {
  await fx.close();
});

/** A queued run claimed as the launcher claims it, and the principal its token authenticates as. */
async function launched(ref = REF): Promise<{ runId: string; principal: Principal; token: string }> {
  const { id } = await deployments.createRun(alice, ref, { operation: 'update' }, 'api');
  const claimed = (await createRunnerService(fx.deps, { claimMs: 60_000 }).claim('codebuild'))!;
  return { runId: id, principal: await fx.identity.authenticate(claimed.token), token: claimed.token };
}

describe('RunAgentService (the runner routes)', () => {
  it("gives the run's own token the run's source, git credential and opened environment, and takes its log and result", async () => {
    // Arrange
    const { runId, principal, token } = await launched();

    // Act
    const brief = await agent.brief(principal, runId);
    await agent.log(principal, runId, ['hello from the build']);
    const beat = await agent.heartbeat(principal, runId);
    await agent.finish(principal, runId, { status: 'succeeded' });

    // Assert
    expect(brief.source).toEqual({ repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' });
    expect(brief.environment).toEqual({ DEPLOY_KEY: 'for-the-runner' });
    expect(brief.gitAuth).toEqual({ kind: 'basic', userName: 'git', password: 'repo-token' });
    expect(beat).toEqual({ cancelRequested: false });
    expect(await deployments.getRun(alice, REF, runId)).toMatchObject({ status: 'succeeded' });
    expect((await deployments.readLogs(alice, REF, runId, 0, 10)).lines.map((l) => l.line)).toContain('hello from the build');
    await expect(fx.identity.authenticate(token)).rejects.toThrow(UnauthorizedError);
  });

  it("refuses a user's token and another run's token", async () => {
    const { runId } = await launched();
    const prod = { ...REF, stack: 'prod' };
    await fx.stacks.create(alice, prod);
    await deployments.patchSettings(alice, prod, SETTINGS);
    const other = await launched(prod);

    await expect(agent.brief(alice, runId)).rejects.toThrow(ForbiddenError);
    await expect(agent.brief(other.principal, runId)).rejects.toThrow(ForbiddenError);
    await expect(agent.finish(other.principal, runId, { status: 'failed' })).rejects.toThrow(ForbiddenError);
    expect(await deployments.getRun(alice, REF, runId)).toMatchObject({ status: 'running' });
  });

  it('says when a cancel was asked for', async () => {
    const { runId, principal } = await launched();
    await deployments.cancelRun(alice, REF, runId);

    expect(await agent.heartbeat(principal, runId)).toEqual({ cancelRequested: true });
  });
});
