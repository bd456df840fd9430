import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { queuedDeploymentRun } from '../../testing/contracts/deployment-store.contract.js';
import { DEPLOYMENT_ID_KEY } from '../updates/run-updates.js';
import { createUpdateService } from '../updates/update-service.js';
import { createDriftService } from './drift-service.js';

const ref = { org: 'admin', project: 'web', stack: 'dev' };
const URN = 'urn:pulumi:dev::web::testprov:index:Thing::one';
const changed = { sequence: 1, resOutputsEvent: { metadata: { op: 'update', urn: URN, type: 'testprov:index:Thing', diffs: ['label'] } } };

describe('drift runs recorded when a preview of a refresh completes', () => {
  let fixture: ServiceFixture;
  beforeEach(async () => {
    fixture = await serviceFixture();
    await fixture.stacks.create(fixture.admin, ref);
  });
  afterEach(async () => {
    await fixture.close();
  });

  async function refreshPreview(environment: Record<string, string>, kind: 'refresh' | 'update' = 'refresh') {
    const updates = createUpdateService(fixture.deps);
    const { updateId } = await updates.create(fixture.admin, ref, { kind, dryRun: true, environment });
    const { token } = await updates.start(fixture.admin, ref, updateId, {});
    await updates.recordEvents(ref, updateId, token, [changed]);
    await updates.complete(ref, updateId, token, 'succeeded');
    return updateId;
  }

  it('names the deployment run whose detect-drift preview it was', async () => {
    const stack = await fixture.storage.stacks.get(ref);
    const run = queuedDeploymentRun(stack.id, 1, fixture.deps.now());
    await fixture.storage.deployments.createRun({ ...run, operation: 'detect-drift' });

    const updateId = await refreshPreview({ [DEPLOYMENT_ID_KEY]: run.id });
    const { driftRuns } = await createDriftService(fixture.deps).listRuns(fixture.admin, ref, 1, 10);

    expect(driftRuns).toMatchObject([{ id: updateId, driftDetected: true, deploymentId: run.id, deploymentVersion: 1 }]);
    expect(driftRuns[0]!.resources).toEqual([{ urn: URN, type: 'testprov:index:Thing', change: 'update', properties: ['label'] }]);
  });

  it("names no deployment for a user's preview, and records no drift run for a preview of an update", async () => {
    await refreshPreview({ 'git.head': 'abc' });
    await refreshPreview({}, 'update');

    const { driftRuns, total } = await createDriftService(fixture.deps).listRuns(fixture.admin, ref, 1, 10);

    expect(total).toBe(1);
    expect(driftRuns[0]!.deploymentId).toBeUndefined();
  });
});
