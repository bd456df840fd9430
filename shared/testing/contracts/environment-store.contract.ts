import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { NewEnvironment, NewRevision } from '../../ports/index.js';
import { uniqueId, uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

/**
 * EnvironmentStore guarantees: names taken atomically with the record and revision 1; revisions appended only at the
 * expected latest revision, never changed; deletes at the expected revision free the name; grants without revision
 * checks; tags created, changed and removed only as asked; open sessions never returned after their expiry.
 */
export function environmentStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`EnvironmentStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    const environment = (org: string, name = 'dev', project = 'app'): NewEnvironment => ({
      id: uniqueId(),
      org,
      project,
      name,
      encryptedDataKey: 'c2VhbGVk',
      createdBy: 'user:alice',
    });
    const revision = (definition: string): NewRevision => ({ definition, createdAt: env.clock.now(), creatorLogin: 'alice' });

    it('creates an environment with its first revision, and a name only once', async () => {
      const org = uniqueOrg();
      const created = await env.storage.environments.create(environment(org), revision('definitions/a.yaml'));

      expect(created).toMatchObject({ org, project: 'app', name: 'dev', revision: 1, grants: {}, createdBy: 'user:alice' });
      expect(await env.storage.environments.get({ org, project: 'app', name: 'dev' })).toEqual(created);
      expect(await env.storage.environments.getById(created.id)).toEqual(created);
      expect(await env.storage.environments.getRevision(created.id, 1)).toEqual({
        number: 1,
        definition: 'definitions/a.yaml',
        createdAt: env.clock.now(),
        creatorLogin: 'alice',
      });
      await expect(env.storage.environments.create(environment(org), revision('definitions/b.yaml'))).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.environments.get({ org, project: 'app', name: 'dev' })).toEqual(created);
      await expect(env.storage.environments.get({ org, project: 'app', name: 'prod' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.environments.get({ org, project: 'app', name: 'open' })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('appends a revision only at the latest revision, and keeps every revision', async () => {
      const created = await env.storage.environments.create(environment(uniqueOrg()), revision('definitions/1.yaml'));
      env.clock.advance(1000);

      const second = await env.storage.environments.addRevision(created.id, 1, revision('definitions/2.yaml'));
      const stale = env.storage.environments.addRevision(created.id, 1, revision('definitions/x.yaml'));

      expect(second).toMatchObject({ revision: 2, modifiedAt: env.clock.now(), createdAt: created.createdAt });
      const conflict = await stale.catch((error: unknown) => error);
      expect(conflict).toBeInstanceOf(ConflictError);
      expect((conflict as ConflictError).details).toEqual({ expectedRevision: 1, revision: 2 });
      await env.storage.environments.addRevision(created.id, 2, revision('definitions/3.yaml'));
      const listed = await env.storage.environments.listRevisions(created.id, { count: 10 });
      expect(listed.map((r) => [r.number, r.definition])).toEqual([
        [3, 'definitions/3.yaml'],
        [2, 'definitions/2.yaml'],
        [1, 'definitions/1.yaml'],
      ]);
      expect((await env.storage.environments.listRevisions(created.id, { before: 3, count: 1 })).map((r) => r.number)).toEqual([2]);
      expect(await env.storage.environments.listRevisions(created.id, { before: 1, count: 5 })).toEqual([]);
      await expect(env.storage.environments.getRevision(created.id, 4)).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.environments.addRevision(uniqueId(), 1, revision('definitions/y.yaml'))).rejects.toBeInstanceOf(NotFoundError);
    });

    it('deletes only at the expected revision, freeing the name for a new environment', async () => {
      const org = uniqueOrg();
      const created = await env.storage.environments.create(environment(org), revision('definitions/1.yaml'));
      await env.storage.environments.addRevision(created.id, 1, revision('definitions/2.yaml'));

      await expect(env.storage.environments.delete(created.id, 1)).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.environments.get({ org, project: 'app', name: 'dev' })).id).toBe(created.id);
      await env.storage.environments.delete(created.id, 2);

      await expect(env.storage.environments.get({ org, project: 'app', name: 'dev' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.environments.getById(created.id)).rejects.toBeInstanceOf(NotFoundError);
      const again = await env.storage.environments.create(environment(org), revision('definitions/new.yaml'));
      expect(again.id).not.toBe(created.id);
      expect(again.revision).toBe(1);
    });

    it('lists an organization by project and name, page by page', async () => {
      const org = uniqueOrg();
      for (const [project, name] of [['b', 'x'], ['a', 'y-z'], ['a', 'y'], ['c', 'w']] as const) {
        await env.storage.environments.create(environment(org, name, project), revision('definitions/1.yaml'));
      }
      await env.storage.environments.create(environment(uniqueOrg(), 'other'), revision('definitions/1.yaml'));

      const first = await env.storage.environments.list(org, { limit: 3 });
      const second = await env.storage.environments.list(org, { limit: 3, continuationToken: first.continuationToken });

      expect(first.environments.map((e) => `${e.project}/${e.name}`)).toEqual(['a/y', 'a/y-z', 'b/x']);
      expect(second.environments.map((e) => `${e.project}/${e.name}`)).toEqual(['c/w']);
      expect(second.continuationToken).toBeUndefined();
      await expect(env.storage.environments.list(org, { continuationToken: 'garbage!' })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('keeps every concurrent grant, and removes one without touching the others', async () => {
      const created = await env.storage.environments.create(environment(uniqueOrg()), revision('definitions/1.yaml'));

      await Promise.all(['a', 'b', 'c'].map((login) => env.storage.environments.setGrant(created.id, `user:${login}`, 'open')));
      const after = await env.storage.environments.setGrant(created.id, 'user:b', null);

      expect(after.grants).toEqual({ 'user:a': 'open', 'user:c': 'open' });
      expect(after.revision).toBe(1);
      await expect(env.storage.environments.setGrant(created.id, 'user:a', 'owner' as never)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.environments.setGrant(uniqueId(), 'user:a', 'read')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('creates, moves and removes revision tags only as asked', async () => {
      const created = await env.storage.environments.create(environment(uniqueOrg()), revision('definitions/1.yaml'));
      const tag = { name: 'stable', revision: 1, createdAt: env.clock.now(), modifiedAt: env.clock.now(), editorLogin: 'alice' };

      await env.storage.environments.createTag(created.id, tag);
      await expect(env.storage.environments.createTag(created.id, { ...tag, revision: 2 })).rejects.toBeInstanceOf(ConflictError);
      env.clock.advance(5);
      const moved = await env.storage.environments.updateTag(created.id, 'stable', 2, 'bob', env.clock.now());
      await env.storage.environments.createTag(created.id, { ...tag, name: 'v1.0' });

      expect(moved).toEqual({ ...tag, revision: 2, editorLogin: 'bob', modifiedAt: env.clock.now() });
      expect((await env.storage.environments.listTags(created.id)).map((t) => [t.name, t.revision])).toEqual([
        ['stable', 2],
        ['v1.0', 1],
      ]);
      await env.storage.environments.deleteTag(created.id, 'stable');
      await expect(env.storage.environments.getTag(created.id, 'stable')).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.environments.deleteTag(created.id, 'stable')).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.environments.updateTag(created.id, 'gone', 1, 'bob', 0)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('returns an open session until its expiry and never after', async () => {
      const id = randomBytes(16).toString('hex');
      const session = { id, environmentId: uniqueId(), revision: 3, login: 'alice', createdAt: env.clock.now(), expiresAt: env.clock.now() + 1000 };

      await env.storage.environments.createOpenSession(session);

      expect(await env.storage.environments.getOpenSession(id)).toEqual(session);
      await expect(env.storage.environments.createOpenSession({ ...session, login: 'eve' })).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.environments.getOpenSession(randomBytes(16).toString('hex'))).toBeUndefined();
      expect(await env.storage.environments.getOpenSession('../etc')).toBeUndefined();
      env.clock.advance(1000);
      expect(await env.storage.environments.getOpenSession(id)).toBeUndefined();
    });

    it("keeps an anonymous session's sealed definition and its key", async () => {
      const id = randomBytes(16).toString('hex');
      const sealed = { encryptedDataKey: 'a2V5', sealedDefinition: 'c2VhbGVk' };
      const session = { id, environmentId: 'yaml:acme', revision: 0, login: 'alice', createdAt: env.clock.now(), expiresAt: env.clock.now() + 1000, ...sealed };

      await env.storage.environments.createOpenSession(session);

      expect(await env.storage.environments.getOpenSession(id)).toEqual(session);
    });
  });
}
