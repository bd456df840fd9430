import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { NewStack, StackRecord } from '../../ports/index.js';
import { uniqueId, uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

function newStack(org: string, project: string, stack: string, tags: Record<string, string> = {}): NewStack {
  return { id: uniqueId(), org, project, stack, tags, createdAt: 1_700_000_000_000 };
}

/** StackStore guarantees: unique names, revisions, atomic rename, paging by org/project/tag, NotFound. */
export function stackStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`StackStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('creates a stack at revision 1, version 0, readable by name and id', async () => {
      const org = uniqueOrg();
      const created = await env.storage.stacks.create(newStack(org, 'p', 'dev', { a: '1' }));
      expect(created).toMatchObject({ org, project: 'p', stack: 'dev', version: 0, revision: 1, tags: { a: '1' } });
      expect(await env.storage.stacks.get({ org, project: 'p', stack: 'dev' })).toEqual(created);
      expect(await env.storage.stacks.getById(created.id)).toEqual(created);
    });

    it('keeps the creator and grants, replaces grants at the expected revision, and carries them through a rename', async () => {
      const org = uniqueOrg();
      const created = await env.storage.stacks.create({ ...newStack(org, 'p', 'dev'), createdBy: 'user:alice', grants: { 'team:ops': 'write' } });

      const updated = await env.storage.stacks.update(created.id, 1, { grants: { 'team:ops': 'read', 'user:bob': 'admin' } });
      const renamed = await env.storage.stacks.rename(created.id, 2, { org, project: 'p', stack: 'prod' });

      expect(created).toMatchObject({ createdBy: 'user:alice', grants: { 'team:ops': 'write' } });
      expect(updated.grants).toEqual({ 'team:ops': 'read', 'user:bob': 'admin' });
      expect(await env.storage.stacks.get({ org, project: 'p', stack: 'prod' })).toEqual(renamed);
      expect(renamed).toMatchObject({ createdBy: 'user:alice', grants: { 'team:ops': 'read', 'user:bob': 'admin' } });
      await expect(env.storage.stacks.update(created.id, 2, { grants: { 'user:eve': 'admin' } })).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.stacks.update(created.id, 3, { grants: { 'root:eve': 'admin' } })).rejects.toBeInstanceOf(InvalidInputError);
      expect((await env.storage.stacks.getById(created.id)).grants).toEqual({ 'team:ops': 'read', 'user:bob': 'admin' });
    });

    it('sets and removes one grant at a time, concurrently for different subjects, bumping the revision', async () => {
      const org = uniqueOrg();
      const bare = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      const subjects = ['user:u1', 'user:u2', 'user:u3', 'team:t1', 'team:t2', 'team:t3'] as const;

      await Promise.all(subjects.map((subject) => env.storage.stacks.setGrant(bare.id, subject, 'read')));
      const raised = await env.storage.stacks.setGrant(bare.id, 'user:u1', 'admin');
      const removed = await env.storage.stacks.setGrant(bare.id, 'team:t1', null);
      const absent = await env.storage.stacks.setGrant(bare.id, 'team:nobody', null);

      expect(raised.grants?.['user:u1']).toBe('admin');
      expect(removed.grants).toEqual({ 'user:u1': 'admin', 'user:u2': 'read', 'user:u3': 'read', 'team:t2': 'read', 'team:t3': 'read' });
      expect(absent.grants).toEqual(removed.grants);
      expect(removed.revision).toBe(bare.revision + subjects.length + 2);
      // A revision-checked write of the record as it was read before the grants fails rather than drop them.
      await expect(env.storage.stacks.update(bare.id, bare.revision, { grants: {} })).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.stacks.getById(bare.id)).grants).toEqual(absent.grants);
      await expect(env.storage.stacks.setGrant(bare.id, 'root:eve', 'read')).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.setGrant(bare.id, 'user:eve', 'owner' as never)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.setGrant(uniqueId(), 'user:eve', 'read')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('refuses a second stack with a taken name and keeps the first', async () => {
      const org = uniqueOrg();
      const first = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      await expect(env.storage.stacks.create(newStack(org, 'p', 'dev'))).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.stacks.get({ org, project: 'p', stack: 'dev' })).toEqual(first);
    });

    it('refuses a second stack with a taken id', async () => {
      const org = uniqueOrg();
      const first = await env.storage.stacks.create(newStack(org, 'p', 'one'));
      await expect(
        env.storage.stacks.create({ ...newStack(org, 'p', 'two'), id: first.id }),
      ).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'two' })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('rejects bad names with InvalidInputError', async () => {
      const org = uniqueOrg();
      await expect(env.storage.stacks.create(newStack(org, 'p', '..'))).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.create(newStack(org, 'a/b', 'dev'))).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.create(newStack('x', 'p', 'dev'))).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'a'.repeat(101) })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it('throws NotFoundError for missing stacks', async () => {
      const org = uniqueOrg();
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.stacks.getById(uniqueId())).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.stacks.update(uniqueId(), 1, { version: 1 })).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.stacks.delete(uniqueId(), 1)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('updates at the expected revision, sets and removes fields, bumps the revision', async () => {
      const org = uniqueOrg();
      const s = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      const u1 = await env.storage.stacks.update(s.id, 1, {
        version: 1,
        lastUpdate: 5,
        resourceCount: 3,
        activeUpdate: 'u1',
        tags: { k: 'v' },
      });
      expect(u1).toMatchObject({ revision: 2, version: 1, lastUpdate: 5, resourceCount: 3, activeUpdate: 'u1' });
      expect(u1.tags).toEqual({ k: 'v' });
      const u2 = await env.storage.stacks.update(s.id, 2, { activeUpdate: null, resourceCount: null });
      expect(u2.revision).toBe(3);
      expect(u2.activeUpdate).toBeUndefined();
      expect(u2.resourceCount).toBeUndefined();
      expect(await env.storage.stacks.getById(s.id)).toEqual(u2);
    });

    it('keeps a remote-config environment from create, through a rename, until a change removes it; refuses a malformed one', async () => {
      const org = uniqueOrg();
      const s = await env.storage.stacks.create({ ...newStack(org, 'p', 'dev'), configEnvironment: 'p/dev' });
      expect((await env.storage.stacks.get({ org, project: 'p', stack: 'dev' })).configEnvironment).toBe('p/dev');
      const renamed = await env.storage.stacks.rename(s.id, 1, { org, project: 'p', stack: 'prod' });
      expect(renamed.configEnvironment).toBe('p/dev');
      const moved = await env.storage.stacks.update(s.id, 2, { configEnvironment: 'shared/prod' });
      expect((await env.storage.stacks.getById(s.id)).configEnvironment).toBe('shared/prod');
      await env.storage.stacks.update(s.id, moved.revision, { configEnvironment: null });
      expect((await env.storage.stacks.getById(s.id)).configEnvironment).toBeUndefined();
      await expect(env.storage.stacks.create({ ...newStack(org, 'p', 'bad'), configEnvironment: 'no-project' })).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.update(s.id, moved.revision + 1, { configEnvironment: 'a/b/c' })).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'bad' })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('refuses a stale revision with ConflictError and changes nothing', async () => {
      const org = uniqueOrg();
      const s = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      const current = await env.storage.stacks.update(s.id, 1, { version: 1 });
      await expect(env.storage.stacks.update(s.id, 1, { version: 9 })).rejects.toBeInstanceOf(ConflictError);
      await expect(
        env.storage.stacks.rename(s.id, 1, { org, project: 'p', stack: 'other' }),
      ).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.stacks.delete(s.id, 1)).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.stacks.getById(s.id)).toEqual(current);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'other' })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('renames atomically: the old name is freed, the id kept, changes applied', async () => {
      const org = uniqueOrg();
      const s = await env.storage.stacks.create(newStack(org, 'p', 'dev', { t: '1' }));
      const renamed = await env.storage.stacks.rename(s.id, 1, { org, project: 'q', stack: 'prod' }, { version: 1 });
      expect(renamed).toMatchObject({ id: s.id, org, project: 'q', stack: 'prod', revision: 2, version: 1 });
      expect(await env.storage.stacks.get({ org, project: 'q', stack: 'prod' })).toEqual(renamed);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'dev' })).rejects.toBeInstanceOf(NotFoundError);
      const again = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      expect(again.id).not.toBe(s.id);
    });

    it('refuses a rename onto a taken name and changes nothing', async () => {
      const org = uniqueOrg();
      const a = await env.storage.stacks.create(newStack(org, 'p', 'a'));
      const b = await env.storage.stacks.create(newStack(org, 'p', 'b'));
      await expect(
        env.storage.stacks.rename(a.id, 1, { org, project: 'p', stack: 'b' }, { version: 7 }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.stacks.get({ org, project: 'p', stack: 'a' })).toEqual(a);
      expect(await env.storage.stacks.get({ org, project: 'p', stack: 'b' })).toEqual(b);
      expect(await env.storage.stacks.getById(a.id)).toEqual(a);
    });

    it('refuses a rename to another org or a bad name', async () => {
      const org = uniqueOrg();
      const a = await env.storage.stacks.create(newStack(org, 'p', 'a'));
      await expect(
        env.storage.stacks.rename(a.id, 1, { org: uniqueOrg(), project: 'p', stack: 'a' }),
      ).rejects.toBeInstanceOf(InvalidInputError);
      await expect(env.storage.stacks.rename(a.id, 1, { org, project: 'p', stack: '..' })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      expect(await env.storage.stacks.getById(a.id)).toEqual(a);
    });

    it('deletes at the expected revision and frees the name', async () => {
      const org = uniqueOrg();
      const s = await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      await env.storage.stacks.delete(s.id, 1);
      await expect(env.storage.stacks.getById(s.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.stacks.get({ org, project: 'p', stack: 'dev' })).rejects.toBeInstanceOf(NotFoundError);
      await env.storage.stacks.create(newStack(org, 'p', 'dev'));
    });

    async function collect(query: Parameters<ContractEnv['storage']['stacks']['list']>[0]): Promise<StackRecord[][]> {
      const pages: StackRecord[][] = [];
      let token: string | undefined;
      do {
        const page = await env.storage.stacks.list({ ...query, continuationToken: token });
        pages.push(page.stacks);
        if (page.continuationToken !== undefined) expect(page.continuationToken).not.toBe('');
        token = page.continuationToken;
      } while (token !== undefined);
      return pages;
    }

    it('lists by org and project in pages with opaque tokens, sorted by project then stack', async () => {
      const org = uniqueOrg();
      const other = uniqueOrg();
      const names: Array<[string, string]> = [];
      for (const project of ['b', 'a']) {
        for (const stack of ['s3', 's1', 's2']) {
          await env.storage.stacks.create(newStack(org, project, stack, { env: stack === 's1' ? 'prod' : 'dev' }));
          names.push([project, stack]);
        }
      }
      await env.storage.stacks.create(newStack(other, 'a', 's1'));
      names.sort((x, y) => (x[0] + '/' + x[1]).localeCompare(y[0] + '/' + y[1]));

      const pages = await collect({ org, limit: 4 });
      expect(pages.map((p) => p.length)).toEqual([4, 2]);
      expect(pages.flat().map((s) => [s.project, s.stack])).toEqual(names);

      const exact = await collect({ org, limit: 6 });
      expect(exact.flat()).toHaveLength(6);

      const byProject = await collect({ org, project: 'a', limit: 2 });
      expect(byProject.flat().map((s) => s.stack)).toEqual(['s1', 's2', 's3']);

      const byTag = await collect({ org, tagName: 'env', limit: 1 });
      expect(byTag.flat()).toHaveLength(6);
      const byTagValue = await collect({ org, tagName: 'env', tagValue: 'prod', limit: 10 });
      expect(byTagValue.flat().map((s) => [s.project, s.stack])).toEqual([
        ['a', 's1'],
        ['b', 's1'],
      ]);
      expect((await collect({ org, tagName: 'missing' })).flat()).toEqual([]);
    });

    it('returns no token on a single last page and an empty list for an unknown org', async () => {
      const org = uniqueOrg();
      await env.storage.stacks.create(newStack(org, 'p', 'dev'));
      const page = await env.storage.stacks.list({ org });
      expect(page.stacks).toHaveLength(1);
      expect(page.continuationToken).toBeUndefined();
      const empty = await env.storage.stacks.list({ org: uniqueOrg() });
      expect(empty).toEqual({ stacks: [] });
    });

    it('rejects an invalid continuation token with InvalidInputError', async () => {
      const org = uniqueOrg();
      await expect(env.storage.stacks.list({ org, continuationToken: 'not-a-token!' })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });
  });
}
