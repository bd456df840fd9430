import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { createLocalStorage } from '../../adapters/local/index.js';
import type { Principal } from '../kernel/principal.js';
import { ENVELOPE_VERSION, StackKeys, dataKeyContext } from './secrets-envelope.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';

const A = { org: 'acme', project: 'web', stack: 'dev' };
const B = { org: 'acme', project: 'web', stack: 'prod' };
const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

let fx: ServiceFixture;
let alice: Principal;

beforeEach(async () => {
  fx = await serviceFixture();
  alice = await fx.user('alice', ['acme']);
  await fx.stacks.create(alice, A);
  await fx.stacks.create(alice, B);
});

afterEach(async () => {
  await fx.close();
});

describe('SecretService', () => {
  it('round-trips a batch in order, under one lazily created data key bound to the stack id', async () => {
    expect((await fx.stacks.get(alice, A)).encryptedDataKey).toBeUndefined();

    const ciphertexts = await fx.secrets.encrypt(alice, A, [utf8('"hunter2"'), utf8(''), utf8('config secret')]);
    const plaintexts = await fx.secrets.decrypt(alice, A, [ciphertexts[2]!, ciphertexts[0]!, ciphertexts[1]!]);

    expect(plaintexts.map(text)).toEqual(['config secret', '"hunter2"', '']);
    expect(ciphertexts[0]![0]).toBe(ENVELOPE_VERSION);
    expect(ciphertexts[0]!.length).toBe(1 + 12 + 9 + 16);
    const stack = await fx.stacks.get(alice, A);
    const encryptedKey = Buffer.from(stack.encryptedDataKey!, 'base64');
    await expect(fx.storage.keys.decryptDataKey(encryptedKey, dataKeyContext(stack.id))).resolves.toHaveLength(32);
    await expect(fx.storage.keys.decryptDataKey(encryptedKey, { stackId: 'another-id' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(JSON.stringify(await fx.snapshot())).not.toContain(Buffer.from('"hunter2"').toString('base64'));
  });

  it('refuses a ciphertext of another stack, and a tampered one, with 400', async () => {
    const [ofA] = await fx.secrets.encrypt(alice, A, [utf8('secret of A')]);
    await fx.secrets.encrypt(alice, B, [utf8('gives B a key')]);
    const tampered = Uint8Array.from(ofA!);
    tampered[20]! ^= 0x01;

    await expect(fx.secrets.decrypt(alice, B, [ofA!])).rejects.toThrow(/does not belong to stack 'acme\/web\/prod'/);
    await expect(fx.secrets.decrypt(alice, A, [tampered])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.secrets.decrypt(alice, A, [ofA!.subarray(0, 10)])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.secrets.decrypt(alice, A, [Buffer.from([2, ...ofA!.subarray(1)])])).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect((await fx.secrets.decrypt(alice, A, [ofA!])).map(text)).toEqual(['secret of A']);
  });

  it('refuses any ciphertext for a stack that never encrypted anything, without creating a key', async () => {
    const [ofA] = await fx.secrets.encrypt(alice, A, [utf8('x')]);
    const before = await fx.snapshot();

    await expect(fx.secrets.decrypt(alice, B, [ofA!])).rejects.toBeInstanceOf(InvalidInputError);

    expect(await fx.snapshot()).toEqual(before);
  });

  it('hides stacks of other organizations as not found', async () => {
    const mallory = await fx.user('mallory');
    const [ofA] = await fx.secrets.encrypt(alice, A, [utf8('x')]);

    await expect(fx.secrets.encrypt(mallory, A, [utf8('y')])).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.secrets.decrypt(mallory, A, [ofA!])).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.secrets.decrypt(fx.admin, A, [ofA!])).rejects.toBeInstanceOf(NotFoundError);
  });

  it('two concurrent first encryptions from separate processes settle on one data key', async () => {
    // Two services over the same data folder, each with its own key cache, as two Lambda instances would be.
    const otherStorage = await createLocalStorage({ dataDir: fx.dataDir, now: fx.deps.now });
    const first = fx.deps.keys;
    const second = new StackKeys(otherStorage, { now: fx.deps.now });
    const stack = await fx.stacks.get(alice, A);

    const [[c1], [c2]] = await Promise.all([
      first.encryptForStack(stack, [utf8('one')]),
      second.encryptForStack(stack, [utf8('two')]),
    ]);

    const fresh = await fx.stacks.get(alice, A);
    expect(fresh.revision).toBe(stack.revision + 1);
    const third = new StackKeys(otherStorage, { now: fx.deps.now });
    expect((await third.decryptForStack(fresh, [c1!, c2!])).map(text)).toEqual(['one', 'two']);
  });

  it('forgets plaintext data keys after the cache lifetime', async () => {
    const calls: string[] = [];
    const keys = new StackKeys(
      {
        stacks: fx.storage.stacks,
        keys: {
          generateDataKey: (context) => fx.storage.keys.generateDataKey(context),
          decryptDataKey: (ciphertext, context) => {
            calls.push(context.stackId!);
            return fx.storage.keys.decryptDataKey(ciphertext, context);
          },
        },
      },
      { now: fx.deps.now, cacheMs: 1000 },
    );
    await fx.secrets.encrypt(alice, A, [utf8('x')]);
    const stack = await fx.stacks.get(alice, A);

    await keys.encryptForStack(stack, [utf8('a')]);
    await keys.encryptForStack(stack, [utf8('b')]);
    fx.advance(1000);
    await keys.encryptForStack(stack, [utf8('c')]);

    expect(calls).toEqual([stack.id, stack.id]);
  });
});
