import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { ForbiddenError, NotFoundError, PermissionDeniedError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createEnvironmentService } from '../environments/environment-service.js';
import type { EnvironmentService } from '../environments/types.js';
import { createDeploymentService, type DeploymentService } from './deployment-service.js';
import { createRunAgentService, type RunAgentService } from './run-agent.js';
import { createRunnerService } from './runner-service.js';

const REF = { org: 'acme', project: 'app', stack: 'dev' };
const env = (project: string, name: string) => ({ org: 'acme', project, name });

let fx: ServiceFixture;
let alice: Principal;
let deployments: DeploymentService;
let agent: RunAgentService;
let environments: EnvironmentService;

beforeEach(async () => {
  fx = await serviceFixture();
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  deployments = createDeploymentService(fx.deps);
  agent = createRunAgentService(fx.deps);
  environments = createEnvironmentService(fx.deps);
  await deployments.patchSettings(alice, REF, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } });
  for (const [project, name] of [['app', 'dev'], ['default', 'shared'], ['app', 'prod']] as const) {
    await environments.create(alice, env(project, name));
    await environments.update(alice, env(project, name), `values:\n  where: ${project}-${name}\n`);
  }
});

afterEach(async () => {
  await fx.close();
});

/** A claimed run (queued by `by`) and the principal its token authenticates as. */
async function launched(by = alice): Promise<{ runId: string; principal: Principal }> {
  const { id } = await deployments.createRun(by, REF, { operation: 'update' }, 'api');
  const claimed = (await createRunnerService(fx.deps, { claimMs: 60_000 }).claim('codebuild'))!;
  return { runId: id, principal: await fx.identity.authenticate(claimed.token) };
}

describe("a run's token and its stack's ESC environments", () => {
  it('opens exactly the environments the runner declared, once, and may not write them', async () => {
    const { runId, principal } = await launched();
    await expect(environments.open(principal, env('app', 'dev'), undefined)).rejects.toThrow(PermissionDeniedError);

    await agent.declareEnvironments(principal, runId, ['app/dev', 'shared@1']);

    await expect(environments.open(principal, env('app', 'dev'), undefined)).resolves.toHaveProperty('id');
    await expect(environments.open(principal, env('default', 'shared'), '1')).resolves.toHaveProperty('id');
    await expect(environments.open(principal, env('app', 'prod'), undefined)).rejects.toThrow(/may open only the environments its stack imports/);
    await expect(environments.update(principal, env('app', 'dev'), 'values: {}\n')).rejects.toThrow(PermissionDeniedError);
    await expect(environments.open(principal, env('app', 'missing'), undefined)).rejects.toThrow(NotFoundError);
    await expect(agent.declareEnvironments(principal, runId, ['app/prod'])).rejects.toThrow(ForbiddenError);
    await expect(environments.open(principal, env('app', 'prod'), undefined)).rejects.toThrow(PermissionDeniedError);
  });

  it('opens no more than the user the run acts as may open', async () => {
    const bob = await fx.user('bob', ['acme'], 'member');
    const { runId, principal } = await launched(bob);
    await agent.declareEnvironments(principal, runId, ['app/dev']);
    await expect(environments.open(principal, env('app', 'dev'), undefined)).resolves.toHaveProperty('id');

    await fx.storage.identity.setMemberRole('acme', 'bob', 'viewer');

    await expect(environments.open(principal, env('app', 'dev'), undefined)).rejects.toThrow(/that 'bob' may open/);
  });

  it("opens the stack's remote-configuration environment, which no Pulumi.<stack>.yaml names", async () => {
    const remote = { ...REF, stack: 'remote' };
    await fx.stacks.create(alice, remote, { configEnvironment: 'app/prod' });
    await deployments.patchSettings(alice, remote, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } });
    const { id } = await deployments.createRun(alice, remote, { operation: 'update' }, 'api');
    const claimed = (await createRunnerService(fx.deps, { claimMs: 60_000 }).claim('codebuild'))!;
    const principal = await fx.identity.authenticate(claimed.token);
    await agent.declareEnvironments(principal, id, []);

    await expect(environments.open(principal, env('app', 'prod'), undefined)).resolves.toHaveProperty('id');
    await expect(environments.open(principal, env('app', 'dev'), undefined)).rejects.toThrow(PermissionDeniedError);
  });

  it('refuses a name that is no environment name', async () => {
    const { runId, principal } = await launched();

    await expect(agent.declareEnvironments(principal, runId, ['a/b/c'])).rejects.toThrow(/not an environment name/);
  });
});
