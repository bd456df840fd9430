import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { RunNotice, RunQueue } from '../../ports/run-queue.js';
import { UnavailableError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createDeploymentService } from './deployment-service.js';

const REF = { org: 'acme', project: 'app', stack: 'dev' };
const SETTINGS = { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } };

/** A queue that keeps what it was given, or refuses everything. */
function recordingQueue(refuse = false): RunQueue & { notices: RunNotice[] } {
  const notices: RunNotice[] = [];
  return {
    notices,
    async announce(notice) {
      if (refuse) throw new UnavailableError('The run queue did not take it.');
      notices.push(notice);
    },
  };
}

let fx: ServiceFixture;
let alice: Principal;

async function setUp(queue: RunQueue) {
  fx = await serviceFixture({ runQueue: queue });
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  const deployments = createDeploymentService(fx.deps);
  await deployments.patchSettings(alice, REF, SETTINGS);
  return deployments;
}

afterEach(async () => {
  await fx.close();
});

describe('queueing a run with a run queue (AWS: SQS)', () => {
  it('announces each stored run once, by id, stack and version', async () => {
    // Arrange
    const queue = recordingQueue();
    const deployments = await setUp(queue);

    // Act
    const first = await deployments.createRun(alice, REF, { operation: 'update' }, 'api');
    const second = await deployments.createRun(alice, REF, { operation: 'preview' }, 'api');

    // Assert
    const stackId = queue.notices[0]?.stackId;
    expect(stackId).toMatch(/.+/);
    expect(queue.notices).toEqual([
      { runId: first.id, stackId, version: 1 },
      { runId: second.id, stackId, version: 2 },
    ]);
  });

  it('fails a run the queue refused, saying so, instead of leaving it to wait for no runner', async () => {
    // Arrange
    const deployments = await setUp(recordingQueue(true));

    // Act
    const queued = deployments.createRun(alice, REF, { operation: 'update' }, 'api');

    // Assert
    await expect(queued).rejects.toThrow(UnavailableError);
    const [run] = await deployments.listRuns(alice, REF);
    expect(run).toMatchObject({ status: 'failed', version: 1 });
    expect(JSON.stringify(run)).toContain('not queued: the run queue refused it');
  });
});
