import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError, TooLargeError } from '../../core/errors.js';
import { MAX_OBJECT_BYTES } from '../../ports/index.js';
import { uniqueId, type ContractEnv, type ContractSetup } from './setup.js';

/** CheckpointStore guarantees: immutable puts, NotFound, sorted prefix listing, size limit, name rules. */
export function checkpointStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`CheckpointStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('round-trips a body byte for byte', async () => {
      const stackId = uniqueId();
      const body = randomBytes(300_000);
      await env.storage.checkpoints.put({ stackId, name: 'checkpoints/1.json' }, body);
      const read = await env.storage.checkpoints.get({ stackId, name: 'checkpoints/1.json' });
      expect(Buffer.from(read).equals(body)).toBe(true);
    });

    it('stores a body compressed ahead by prepare exactly like the raw body, and refuses it twice', async () => {
      const stackId = uniqueId();
      const body = Buffer.from(JSON.stringify({ text: 'ünïcode '.repeat(20_000), bytes: randomBytes(1000).toString('hex') }));
      const prepared = await env.storage.checkpoints.prepare(body);
      expect(prepared.size).toBe(body.byteLength);
      expect(prepared.gzipped.byteLength).toBeLessThan(body.byteLength);
      await env.storage.checkpoints.put({ stackId, name: 'prepared' }, prepared);
      await env.storage.checkpoints.put({ stackId, name: 'raw' }, body);
      expect(Buffer.from(await env.storage.checkpoints.get({ stackId, name: 'prepared' })).equals(body)).toBe(true);
      expect(Buffer.from(await env.storage.checkpoints.get({ stackId, name: 'raw' })).equals(body)).toBe(true);
      await expect(env.storage.checkpoints.put({ stackId, name: 'prepared' }, prepared)).rejects.toBeInstanceOf(ConflictError);
      await expect(env.storage.checkpoints.prepare(Buffer.alloc(MAX_OBJECT_BYTES + 1))).rejects.toBeInstanceOf(TooLargeError);
    });

    it('refuses a second put of the same key and keeps the first object', async () => {
      const stackId = uniqueId();
      const key = { stackId, name: 'a/b.json' };
      await env.storage.checkpoints.put(key, Buffer.from('first'));
      await expect(env.storage.checkpoints.put(key, Buffer.from('second'))).rejects.toBeInstanceOf(ConflictError);
      expect(Buffer.from(await env.storage.checkpoints.get(key)).toString()).toBe('first');
    });

    it('throws NotFoundError for a missing object', async () => {
      await expect(env.storage.checkpoints.get({ stackId: uniqueId(), name: 'nope' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('lists names with a prefix, sorted, scoped to the stack', async () => {
      const stackId = uniqueId();
      const other = uniqueId();
      for (const name of ['cp/3', 'cp/1', 'cp/2', 'events/1']) {
        await env.storage.checkpoints.put({ stackId, name }, Buffer.from(name));
      }
      await env.storage.checkpoints.put({ stackId: other, name: 'cp/9' }, Buffer.from('x'));
      expect(await env.storage.checkpoints.list(stackId, 'cp/')).toEqual(['cp/1', 'cp/2', 'cp/3']);
      expect(await env.storage.checkpoints.list(stackId, '')).toEqual(['cp/1', 'cp/2', 'cp/3', 'events/1']);
      expect(await env.storage.checkpoints.list(uniqueId(), '')).toEqual([]);
    });

    it('lists by a prefix that ends inside a segment, at any depth', async () => {
      const stackId = uniqueId();
      const names = ['updates/u1.a/base', 'updates/u1.a/journal/1', 'updates/u1.b', 'updates/u12/x', 'updatesX/y', 'up'];
      for (const name of names) await env.storage.checkpoints.put({ stackId, name }, Buffer.from(name));
      expect(await env.storage.checkpoints.list(stackId, 'updates/u1.')).toEqual(['updates/u1.a/base', 'updates/u1.a/journal/1', 'updates/u1.b']);
      expect(await env.storage.checkpoints.list(stackId, 'updates/u1.a/')).toEqual(['updates/u1.a/base', 'updates/u1.a/journal/1']);
      expect(await env.storage.checkpoints.list(stackId, 'upd')).toEqual(['updates/u1.a/base', 'updates/u1.a/journal/1', 'updates/u1.b', 'updates/u12/x', 'updatesX/y']);
      expect(await env.storage.checkpoints.list(stackId, 'updates/u2')).toEqual([]);
    });

    it('rejects bodies over MAX_OBJECT_BYTES with TooLargeError and writes nothing', async () => {
      const key = { stackId: uniqueId(), name: 'big' };
      await expect(env.storage.checkpoints.put(key, Buffer.alloc(MAX_OBJECT_BYTES + 1))).rejects.toBeInstanceOf(
        TooLargeError,
      );
      await expect(env.storage.checkpoints.get(key)).rejects.toBeInstanceOf(NotFoundError);
    });

    it.each(['', '..', 'a/../b', '/abs', 'a//b', '.', 'a/./b', 'sp ace', 'a/', 'back\\slash'])(
      'rejects the object name %j with InvalidInputError',
      async (name) => {
        const stackId = uniqueId();
        await expect(env.storage.checkpoints.put({ stackId, name }, Buffer.from('x'))).rejects.toBeInstanceOf(
          InvalidInputError,
        );
        await expect(env.storage.checkpoints.get({ stackId, name })).rejects.toBeInstanceOf(InvalidInputError);
        expect(await env.storage.checkpoints.list(stackId, '')).toEqual([]);
      },
    );

    it('rejects a bad stack id with InvalidInputError', async () => {
      await expect(
        env.storage.checkpoints.put({ stackId: '../x', name: 'a' }, Buffer.from('x')),
      ).rejects.toBeInstanceOf(InvalidInputError);
    });
  });
}
