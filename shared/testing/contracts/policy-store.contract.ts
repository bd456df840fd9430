import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import type { PolicyGroupRecord, PolicyPackVersionRecord, StackPolicyResultsRecord } from '../../ports/index.js';
import { uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

/** A pending version of pack `name` in `org`. */
function pendingVersion(org: string, name: string, versionTag: string, version: number): PolicyPackVersionRecord {
  return {
    org,
    name,
    versionTag,
    version,
    displayName: name,
    policies: [{ name: 'no-public-buckets', enforcementLevel: 'mandatory' }],
    details: {},
    status: 'pending',
    uploadTicketHash: 'ab'.repeat(32),
    createdAt: 1,
    createdBy: 'alice',
    revision: 1,
  };
}

function group(org: string, name: string): PolicyGroupRecord {
  return { org, name, isOrgDefault: false, mode: 'preventative', stacks: [], excludedStacks: [], packs: [], modifiedAt: 1, modifiedBy: 'alice', revision: 1 };
}

function results(org: string, stackId: string, version: number, message: string): StackPolicyResultsRecord {
  return {
    org,
    stackId,
    project: 'web',
    stack: stackId,
    updateId: `update-${version}`,
    version,
    observedAt: version * 1000,
    violations: [{ policyPack: 'security', policyPackTag: '1.0.0', policyName: 'tags', level: 'advisory', resourceURN: 'urn:pulumi:dev::web::t:i:R::a', message }],
    omitted: 0,
  };
}

/** PolicyStore guarantees: one version per tag and per number, writes at the revision read, whole packages. */
export function policyStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`PolicyStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('creates a version once per tag and once per number, and lists versions by pack then number', async () => {
      const org = uniqueOrg();
      const first = pendingVersion(org, 'security', '1.0.0', 1);
      await env.storage.policies.createVersion(first);

      await expect(env.storage.policies.createVersion({ ...first, version: 2 })).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.policies.createVersion({ ...first, versionTag: '1.0.1' })).rejects.toBeInstanceOf(ConflictError);
      await env.storage.policies.createVersion(pendingVersion(org, 'security', '1.1.0', 2));
      await env.storage.policies.createVersion(pendingVersion(org, 'cost', '0.1.0', 1));

      expect((await env.storage.policies.listVersions(org)).map((v) => `${v.name}@${v.versionTag}#${v.version}`)).toEqual([
        'cost@0.1.0#1',
        'security@1.0.0#1',
        'security@1.1.0#2',
      ]);
      expect(await env.storage.policies.getVersion(org, 'security', '1.0.0')).toEqual(first);
      expect(await env.storage.policies.getVersion(org, 'security', '9.9.9')).toBeUndefined();
      expect(await env.storage.policies.listVersions(uniqueOrg())).toEqual([]);
    });

    it('updates a version only at the revision its writer read, and frees its tag and number on delete', async () => {
      const org = uniqueOrg();
      const created = pendingVersion(org, 'tags', '2.0.0', 1);
      await env.storage.policies.createVersion(created);
      const published: PolicyPackVersionRecord = { ...created, status: 'published', size: 10, sha256: 'cd'.repeat(32), revision: 2 };
      delete published.uploadTicketHash;

      await env.storage.policies.updateVersion(published, 1);

      await expect(env.storage.policies.updateVersion({ ...published, displayName: 'late', revision: 2 }, 1)).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.policies.getVersion(org, 'tags', '2.0.0')).toEqual(published);
      await env.storage.policies.deleteVersion(org, 'tags', '2.0.0');
      expect(await env.storage.policies.getVersion(org, 'tags', '2.0.0')).toBeUndefined();
      await env.storage.policies.deleteVersion(org, 'tags', '2.0.0');
      await env.storage.policies.createVersion(created);
    });

    it('stores a package whole, reads it back and deletes it', async () => {
      const org = uniqueOrg();
      const tarball = Uint8Array.from({ length: 70_000 }, (_, i) => i % 251);

      await env.storage.policyPackages.putPackage(org, 'security', '1.0.0', tarball);

      expect(Buffer.from((await env.storage.policyPackages.getPackage(org, 'security', '1.0.0'))!)).toEqual(Buffer.from(tarball));
      expect(await env.storage.policyPackages.getPackage(org, 'security', '1.0.1')).toBeUndefined();
      await env.storage.policyPackages.deletePackage(org, 'security', '1.0.0');
      expect(await env.storage.policyPackages.getPackage(org, 'security', '1.0.0')).toBeUndefined();
      await env.storage.policyPackages.deletePackage(org, 'security', '1.0.0');
    });

    it('stores what is PUT to its direct upload location, where it offers one, as putPackage would', async () => {
      const org = uniqueOrg();
      const tarball = Uint8Array.from({ length: 5_000 }, (_, i) => i % 199);

      const location = await env.storage.policyPackages.uploadLocation(org, 'security', '2.0.0', 60);

      if (location === undefined) return; // uploads go through the API (local storage)
      const put = await fetch(location.url, { method: 'PUT', headers: location.headers, body: tarball });
      expect(put.status).toBe(200);
      expect(Buffer.from((await env.storage.policyPackages.getPackage(org, 'security', '2.0.0'))!)).toEqual(Buffer.from(tarball));
      await env.storage.policyPackages.deletePackage(org, 'security', '2.0.0');
    });

    it('creates a group only once and writes it only at the revision its writer read', async () => {
      const org = uniqueOrg();
      const first = group(org, 'prod');
      await env.storage.policies.putGroup(first, undefined);

      await expect(env.storage.policies.putGroup(first, undefined)).rejects.toBeInstanceOf(ConflictError);
      const changed = { ...first, stacks: ['stack-1'], revision: 2 };
      await env.storage.policies.putGroup(changed, 1);
      await expect(env.storage.policies.putGroup({ ...first, stacks: ['stack-2'], revision: 2 }, 1)).rejects.toBeInstanceOf(ConflictError);
      await env.storage.policies.putGroup(group(org, 'dev'), undefined);

      expect(await env.storage.policies.getGroup(org, 'prod')).toEqual(changed);
      expect((await env.storage.policies.listGroups(org)).map((g) => g.name).sort()).toEqual(['dev', 'prod']);
      await env.storage.policies.deleteGroup(org, 'dev');
      await env.storage.policies.deleteGroup(org, 'dev');
      expect(await env.storage.policies.getGroup(org, 'dev')).toBeUndefined();
      expect(await env.storage.policies.getGroup(uniqueOrg(), 'prod')).toBeUndefined();
    });

    it("keeps each stack's results of its highest version: an equal or lower one changes nothing and is no error", async () => {
      const org = uniqueOrg();
      const second = results(org, 'stack-1', 2, 'second');
      await env.storage.policies.recordStackResults(results(org, 'stack-1', 1, 'first'));
      await env.storage.policies.recordStackResults(second);

      await env.storage.policies.recordStackResults(results(org, 'stack-1', 2, 'retried'));
      await env.storage.policies.recordStackResults(results(org, 'stack-1', 1, 'overtaken'));
      await env.storage.policies.recordStackResults(results(org, 'stack-2', 7, 'other'));
      await env.storage.policies.putGroup(group(org, 'prod'), undefined);

      const listed = await env.storage.policies.listStackResults(org);
      expect(listed.sort((a, b) => (a.stackId < b.stackId ? -1 : 1))).toEqual([second, results(org, 'stack-2', 7, 'other')]);
      expect((await env.storage.policies.listGroups(org)).map((g) => g.name)).toEqual(['prod']);
      expect(await env.storage.policies.listStackResults(uniqueOrg())).toEqual([]);
    });
  });
}
