import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { StackRef } from '../names.js';
import { emptyStackDeployment, sampleDeployment, urnOf } from '../../../test/support/deployment-fixtures.js';
import { STILL_HAS_RESOURCES } from './stack-service.js';
import { newUpdateId } from '../state/stack-state.js';
import { START_TIME, serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';
import type { UntypedDeployment } from '../checkpoints/types.js';

const DEV: StackRef = { org: 'acme', project: 'web', stack: 'dev' };

let fx: ServiceFixture;
let alice: Principal;
let mallory: Principal;

beforeEach(async () => {
  fx = await serviceFixture({ listPageSize: 2 });
  alice = await fx.user('alice', ['acme', 'beta']);
  mallory = await fx.user('mallory');
});

afterEach(async () => {
  await fx.close();
});

async function holdLease(ref: StackRef): Promise<void> {
  const stack = await fx.stacks.get(alice, ref);
  await fx.storage.leases.acquire({ stackId: stack.id, updateId: newUpdateId(stack.id), holder: 'bob', durationMs: 60_000 });
}

describe('StackService authorization', () => {
  it('answers 404 for stacks of organizations the principal does not belong to, administrators included', async () => {
    await fx.stacks.create(alice, DEV);
    const before = await fx.snapshot();

    for (const principal of [mallory, fx.admin]) {
      await expect(fx.stacks.get(principal, DEV)).rejects.toThrow(
        "Stack 'acme/web/dev' not found: run 'stackyard stack ls' to see your stacks.",
      );
      await expect(fx.stacks.exportDeployment(principal, DEV)).rejects.toBeInstanceOf(NotFoundError);
      await expect(fx.stacks.remove(principal, DEV, true)).rejects.toBeInstanceOf(NotFoundError);
      await expect(fx.stacks.setTags(principal, DEV, { a: 'b' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(fx.stacks.importDeployment(principal, DEV, emptyStackDeployment(DEV))).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await expect(fx.stacks.rename(principal, DEV, { project: 'web', stack: 'x' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(fx.stacks.create(principal, { ...DEV, stack: 'other' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(fx.stacks.list(principal, { org: 'acme' })).rejects.toBeInstanceOf(NotFoundError);
      expect(await fx.stacks.projectExists(principal, 'acme', 'web')).toBe(false);
    }
    expect(await fx.stacks.projectExists(alice, 'acme', 'web')).toBe(true);
    expect(await fx.stacks.projectExists(alice, 'acme', 'api')).toBe(false);
    expect(await fx.snapshot()).toEqual(before);
  });
});

describe('StackService.create', () => {
  it('creates once; a second create is 409 saying it already exists; bad input changes nothing', async () => {
    const created = await fx.stacks.create(alice, DEV, { tags: { 'pulumi:project': 'web' } });
    const before = await fx.snapshot();

    await expect(fx.stacks.create(alice, DEV)).rejects.toThrow(/^Stack 'acme\/web\/dev' already exists/);
    await expect(fx.stacks.create(alice, DEV)).rejects.toBeInstanceOf(ConflictError);
    await expect(fx.stacks.create(alice, { ...DEV, stack: 'bad/name' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.stacks.create(alice, { ...DEV, stack: 'ok' }, { tags: { 'bad tag': 'x' } })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(
      fx.stacks.create(alice, { ...DEV, stack: 'ok' }, { initialState: { version: 3, deployment: {} } }),
    ).rejects.toThrow(/manifest/);

    expect(await fx.snapshot()).toEqual(before);
    expect(created).toMatchObject({ ...DEV, version: 0, tags: { 'pulumi:project': 'web' }, createdAt: START_TIME });
  });

  it('stores an initial state that export then returns', async () => {
    const initial: UntypedDeployment = {
      version: 3,
      deployment: {
        manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: '' },
        secrets_providers: { type: 'passphrase', state: { salt: 'v1:xyz' } },
      },
    };

    await fx.stacks.create(alice, DEV, { initialState: initial });

    expect(await fx.stacks.exportDeployment(alice, DEV)).toEqual(initial);
  });
});

describe('StackService.list', () => {
  it('pages across the principal’s organizations with an opaque token', async () => {
    const names: StackRef[] = [
      { org: 'acme', project: 'a', stack: 's1' },
      { org: 'acme', project: 'a', stack: 's2' },
      { org: 'acme', project: 'b', stack: 's1' },
      { org: 'beta', project: 'a', stack: 's1' },
      { org: 'beta', project: 'a', stack: 's2' },
    ];
    for (const ref of names) await fx.stacks.create(alice, ref);
    await fx.stacks.create(mallory, { org: 'mallory', project: 'a', stack: 's1' });

    const seen: string[] = [];
    const tokens: string[] = [];
    let token: string | undefined;
    do {
      const page = await fx.stacks.list(alice, token === undefined ? {} : { continuationToken: token });
      seen.push(...page.stacks.map((s) => `${s.org}/${s.project}/${s.stack}`));
      token = page.continuationToken;
      if (token !== undefined) tokens.push(token);
    } while (token !== undefined);

    expect(seen).toEqual(names.map((n) => `${n.org}/${n.project}/${n.stack}`));
    expect(tokens.every((t) => t.length > 0)).toBe(true);
    const projectA = await fx.stacks.list(alice, { project: 'a' });
    expect(projectA.stacks.map((s) => s.org)).toEqual(['acme', 'acme']);
    const oneOrg = await fx.stacks.list(alice, { org: 'beta' });
    expect(oneOrg).toEqual({ stacks: expect.any(Array) as unknown });
    expect(oneOrg.stacks).toHaveLength(2);
  });

  it('refuses forged tokens and tokens of another query with 400', async () => {
    for (const ref of [DEV, { ...DEV, stack: 'b' }, { ...DEV, stack: 'c' }]) await fx.stacks.create(alice, ref);
    const first = await fx.stacks.list(alice, {});
    const forged = Buffer.from(JSON.stringify({ v: 1, org: 'mallory', q: '[null,null,null,null]' })).toString('base64url');

    for (const continuationToken of ['', 'garbage', forged]) {
      await expect(fx.stacks.list(alice, { continuationToken })).rejects.toBeInstanceOf(InvalidInputError);
    }
    await expect(
      fx.stacks.list(alice, { project: 'web', continuationToken: first.continuationToken! }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.stacks.list(mallory, { continuationToken: first.continuationToken! })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('filters by tag', async () => {
    await fx.stacks.create(alice, DEV, { tags: { env: 'dev' } });
    await fx.stacks.create(alice, { ...DEV, stack: 'prod' }, { tags: { env: 'prod' } });

    const page = await fx.stacks.list(alice, { tagName: 'env', tagValue: 'prod' });

    expect(page.stacks.map((s) => s.stack)).toEqual(['prod']);
  });
});

describe('StackService.remove', () => {
  it('refuses a stack with resources unless forced, and refuses while an update holds the lease', async () => {
    await fx.stacks.create(alice, DEV);
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV));
    const before = await fx.snapshot();

    await expect(fx.stacks.remove(alice, DEV, false)).rejects.toThrow(
      new InvalidInputError('Bad Request: Stack still contains resources.'),
    );
    expect(STILL_HAS_RESOURCES).toBe('Bad Request: Stack still contains resources.');
    expect(await fx.snapshot()).toEqual(before);

    await holdLease(DEV);
    await expect(fx.stacks.remove(alice, DEV, true)).rejects.toThrow(/update .* by bob is in progress/);
    expect((await fx.stacks.get(alice, DEV)).version).toBe(1);
  });

  it('removes with force, or without it when only the root stack resource is left; the name is then free', async () => {
    const first = await fx.stacks.create(alice, DEV);
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV));
    await fx.stacks.create(alice, { ...DEV, stack: 'empty' });
    await fx.stacks.importDeployment(alice, { ...DEV, stack: 'empty' }, emptyStackDeployment({ ...DEV, stack: 'empty' }));

    await fx.stacks.remove(alice, DEV, true);
    await fx.stacks.remove(alice, { ...DEV, stack: 'empty' }, false);

    await expect(fx.stacks.get(alice, DEV)).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.stacks.get(alice, { ...DEV, stack: 'empty' })).rejects.toBeInstanceOf(NotFoundError);
    expect((await fx.storage.updates.listHistory(first.id, 1, 10)).updates).toEqual([]);
    const again = await fx.stacks.create(alice, DEV);
    expect(again.id).not.toBe(first.id);
    expect(await fx.stacks.history(alice, DEV, 1, 10)).toEqual([]);
    expect((await fx.stacks.exportDeployment(alice, DEV)).deployment.resources).toBeUndefined();
  });
});

describe('StackService.rename', () => {
  it('rewrites URNs and the secrets provider, keeps secrets decryptable, bumps the version and records history', async () => {
    await fx.stacks.create(alice, DEV, { tags: { 'pulumi:project': 'web' } });
    const [ciphertext] = await fx.secrets.encrypt(alice, DEV, [Buffer.from('"s3cret"')]);
    const b64 = Buffer.from(ciphertext!).toString('base64');
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV, b64));
    const to = { project: 'site', stack: 'prod' };
    const NEW = { org: 'acme', ...to };
    fx.advance(1000);

    const renamed = await fx.stacks.rename(alice, DEV, to);

    expect(renamed).toMatchObject({ ...NEW, version: 2, lastUpdate: START_TIME + 1000, resourceCount: 4 });
    expect(renamed.tags).toEqual({ 'pulumi:project': 'site' });
    await expect(fx.stacks.get(alice, DEV)).rejects.toBeInstanceOf(NotFoundError);
    const exported = await fx.stacks.exportDeployment(alice, NEW);
    expect(exported).toEqual(sampleDeployment(NEW, b64));
    expect(JSON.stringify(exported)).not.toContain('dev::web');
    const password = (exported.deployment.resources as { outputs: { password: { ciphertext: string } } }[])[0]!.outputs
      .password.ciphertext;
    const [plaintext] = await fx.secrets.decrypt(alice, NEW, [Buffer.from(password, 'base64')]);
    expect(Buffer.from(plaintext!).toString()).toBe('"s3cret"');
    const history = await fx.stacks.history(alice, NEW, 1, 10);
    expect(history.map((h) => [h.kind, h.version, h.status])).toEqual([
      ['rename', 2, 'succeeded'],
      ['import', 1, 'succeeded'],
    ]);
    expect(await fx.stacks.exportDeployment(alice, NEW, 1)).toEqual(sampleDeployment(DEV, b64));
  });

  it('refuses a taken name, an unchanged name and a held lease, changing nothing', async () => {
    await fx.stacks.create(alice, DEV);
    await fx.stacks.create(alice, { ...DEV, stack: 'prod' });
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV));
    const before = await fx.snapshot();

    await expect(fx.stacks.rename(alice, DEV, { project: 'web', stack: 'prod' })).rejects.toThrow(
      /^Stack 'acme\/web\/prod' already exists/,
    );
    await expect(fx.stacks.rename(alice, DEV, { project: 'web', stack: 'dev' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.stacks.rename(alice, DEV, { project: 'web', stack: '../x' })).rejects.toBeInstanceOf(InvalidInputError);
    expect(await fx.snapshot()).toEqual(before);

    await holdLease(DEV);
    await expect(fx.stacks.rename(alice, DEV, { project: 'web', stack: 'new' })).rejects.toBeInstanceOf(ConflictError);
    expect((await fx.stacks.get(alice, DEV)).version).toBe(1);
  });
});

describe('StackService state', () => {
  it('exports a valid minimal deployment for a never-updated stack; unknown versions are 404', async () => {
    await fx.stacks.create(alice, DEV);

    const exported = await fx.stacks.exportDeployment(alice, DEV);

    expect(exported).toEqual({
      version: 3,
      deployment: { manifest: { time: new Date(START_TIME).toISOString(), magic: '', version: '' } },
    });
    await expect(fx.stacks.exportDeployment(alice, DEV, 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.stacks.exportDeployment(alice, DEV, 0)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.stacks.latestUpdate(alice, DEV)).rejects.toThrow(/has never been updated/);
  });

  it('imports as new versions with history newest first, paged; export by version returns each', async () => {
    const stack = await fx.stacks.create(alice, DEV);
    const one = emptyStackDeployment(DEV);
    const two = sampleDeployment(DEV);

    const { updateId: first } = await fx.stacks.importDeployment(alice, DEV, one);
    fx.advance(1000);
    const { updateId: second } = await fx.stacks.importDeployment(alice, DEV, two);

    expect(await fx.stacks.get(alice, DEV)).toMatchObject({ version: 2, resourceCount: 4, lastUpdate: START_TIME + 1000 });
    expect(await fx.stacks.exportDeployment(alice, DEV)).toEqual(two);
    expect(await fx.stacks.exportDeployment(alice, DEV, 1)).toEqual(one);
    expect(await fx.stacks.exportDeployment(alice, DEV, 2)).toEqual(two);
    expect((await fx.stacks.history(alice, DEV, 1, 10)).map((h) => h.id)).toEqual([second, first]);
    expect((await fx.stacks.history(alice, DEV, 2, 1)).map((h) => h.id)).toEqual([first]);
    expect(await fx.stacks.latestUpdate(alice, DEV)).toMatchObject({ id: second, kind: 'import', version: 2 });
    const record = await fx.storage.updates.get(stack.id, second);
    expect(record).toMatchObject({ status: 'succeeded', requestedBy: 'alice', dryRun: false });
    expect(record.message).toMatch(/1 pending operation/);
    await expect(fx.stacks.history(alice, DEV, 0, 10)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(fx.stacks.history(alice, DEV, 1, 101)).rejects.toBeInstanceOf(InvalidInputError);
  });

  const GHOST = urnOf(DEV, 'x:y:P', 'ghost');
  const GHOST_PROVIDER = urnOf(DEV, 'pulumi:providers:aws', 'ghost');
  it.each([
    ['parent', GHOST, { parent: GHOST }],
    ['dependency', GHOST, { dependencies: [GHOST] }],
    ['provider', GHOST_PROVIDER, { provider: `${GHOST_PROVIDER}::id-1` }],
  ])('refuses an import with a dangling %s with 400 naming both URNs, changing nothing', async (what, missing, reference) => {
    await fx.stacks.create(alice, DEV);
    const broken = emptyStackDeployment(DEV);
    const child = urnOf(DEV, 'x:y:C', 'child');
    (broken.deployment.resources as unknown[]).push({ urn: child, custom: true, type: 'x:y:C', ...reference });
    const before = await fx.snapshot();

    const attempt = fx.stacks.importDeployment(alice, DEV, broken);

    await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
    await expect(attempt).rejects.toThrow(child);
    await expect(attempt).rejects.toThrow(`refers to ${what} '${missing}'`);
    expect(await fx.snapshot()).toEqual(before);
  });

  it('refuses an import while an update holds the lease', async () => {
    await fx.stacks.create(alice, DEV);
    await holdLease(DEV);
    const before = await fx.snapshot();

    await expect(fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV))).rejects.toBeInstanceOf(ConflictError);

    expect(await fx.snapshot()).toEqual(before);
  });

  it('records a crashed update (no lease left) as failed before an import replaces its state', async () => {
    const stack = await fx.stacks.create(alice, DEV);
    const crashed = newUpdateId(stack.id);
    await fx.storage.updates.create({
      id: crashed,
      stackId: stack.id,
      kind: 'update',
      dryRun: false,
      status: 'in-progress',
      requestedBy: 'alice',
      createdAt: START_TIME,
      environment: {},
      config: {},
    });
    await fx.storage.stacks.update(stack.id, stack.revision, { activeUpdate: crashed });

    const { updateId } = await fx.stacks.importDeployment(alice, DEV, emptyStackDeployment(DEV));

    const history = await fx.stacks.history(alice, DEV, 1, 10);
    expect(history.map((h) => [h.id, h.status, h.version])).toEqual([
      [updateId, 'succeeded', 2],
      [crashed, 'failed', 1],
    ]);
    expect(await fx.stacks.get(alice, DEV)).not.toHaveProperty('activeUpdate');
    expect(await fx.stacks.exportDeployment(alice, DEV)).toEqual(emptyStackDeployment(DEV));
  });

  it('replaces tags as a whole; invalid tags change nothing', async () => {
    await fx.stacks.create(alice, DEV, { tags: { a: '1', b: '2' } });

    await fx.stacks.setTags(alice, DEV, { c: '3' });
    const before = await fx.snapshot();
    await expect(fx.stacks.setTags(alice, DEV, { c: 'x'.repeat(300) })).rejects.toBeInstanceOf(InvalidInputError);

    expect((await fx.stacks.get(alice, DEV)).tags).toEqual({ c: '3' });
    expect(await fx.snapshot()).toEqual(before);
  });

  it('concurrent tag writes all succeed by retrying on a stale revision', async () => {
    await fx.stacks.create(alice, DEV);

    await Promise.all([1, 2, 3].map((n) => fx.stacks.setTags(alice, DEV, { n: String(n) })));

    expect((await fx.stacks.get(alice, DEV)).revision).toBe(4);
  });
});
