import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { ForbiddenError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createUpdateService } from '../updates/update-service.js';
import { createPolicyService } from './policy-service.js';

const ref = { org: 'acme', project: 'web', stack: 'dev' };
const URN = 'urn:pulumi:dev::web::console:index:Site$testprov:index:Thing::web-r0';

/** A `policyEvent` as the `pulumi` CLI sends it. */
function violation(policyName: string, enforcementLevel: string, resourceUrn?: string) {
  return {
    sequence: 1,
    policyEvent: {
      ...(resourceUrn ? { resourceUrn } : {}),
      message: `${policyName} failed\n`,
      color: 'never',
      policyName,
      policyPackName: 'publishable',
      policyPackVersion: '0.0.1',
      policyPackVersionTag: '0.0.1',
      enforcementLevel,
    },
  };
}

describe('policy results recorded when an update completes', () => {
  let fixture: ServiceFixture;
  let alice: Principal;
  let owner: Principal;
  beforeEach(async () => {
    fixture = await serviceFixture();
    owner = await fixture.user('olga', ['acme'], 'admin');
    alice = await fixture.user('alice', ['acme'], 'member');
    await fixture.stacks.create(owner, ref);
  });
  afterEach(async () => {
    await fixture.close();
  });

  async function run(kind: 'update' | 'destroy' | 'refresh', events: unknown[], dryRun = false, status: 'succeeded' | 'failed' = 'succeeded') {
    const updates = createUpdateService(fixture.deps);
    const { updateId } = await updates.create(owner, ref, { kind, dryRun, environment: {} });
    const { token } = await updates.start(owner, ref, updateId, {});
    if (events.length > 0) await updates.recordEvents(ref, updateId, token, events);
    fixture.advance(1000);
    await updates.complete(ref, updateId, token, status);
    return updateId;
  }

  const violations = (who: Principal = alice) => createPolicyService(fixture.deps).listViolations(who, 'acme');

  it("lists the violations of each stack's latest update, in Pulumi's PolicyViolationV2 shape, to members", async () => {
    const updateId = await run('update', [violation('no-forbidden-names', 'advisory', URN), violation('at-most-ten-resources', 'mandatory'), { sequence: 2, stdoutEvent: { message: 'hi' } }], false, 'failed');

    const { policyViolations } = await violations();

    expect(policyViolations).toEqual([
      {
        id: `${updateId}-0`,
        projectName: 'web',
        stackName: 'dev',
        stackVersion: 1,
        policyPack: 'publishable',
        policyPackTag: '0.0.1',
        policyName: 'no-forbidden-names',
        resourceURN: URN,
        resourceType: 'testprov:index:Thing',
        resourceName: 'web-r0',
        message: 'no-forbidden-names failed',
        observedAt: new Date(fixture.deps.now()).toISOString(),
        level: 'advisory',
        kind: 'preventative',
      },
      expect.objectContaining({ policyName: 'at-most-ten-resources', level: 'mandatory', resourceURN: '', resourceType: '', resourceName: '' }),
    ]);
  });

  it('a later up replaces them, a succeeded destroy clears them; previews and refreshes leave them', async () => {
    await run('update', [violation('no-forbidden-names', 'advisory', URN)]);
    await run('update', [violation('no-forbidden-names', 'advisory', URN), violation('tags', 'advisory', URN)]);
    await run('update', [violation('other', 'advisory', URN)], true);
    await run('refresh', []);
    const afterUps = (await violations()).policyViolations.map((v) => [v.policyName, v.stackVersion]);

    await run('destroy', []);

    expect(afterUps).toEqual([
      ['no-forbidden-names', 2],
      ['tags', 2],
    ]);
    expect((await violations()).policyViolations).toEqual([]);
  });

  it('refuses a viewer and anyone outside the organization', async () => {
    await run('update', [violation('no-forbidden-names', 'advisory', URN)]);
    const victor = await fixture.user('victor', ['acme'], 'viewer');
    const mallory = await fixture.user('mallory', ['globex'], 'admin');

    await expect(violations(victor)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(violations(mallory)).rejects.toThrow();
  });
});
