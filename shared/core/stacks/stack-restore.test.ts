import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { StackRef } from '../names.js';
import { emptyStackDeployment, sampleDeployment } from '../../../test/support/deployment-fixtures.js';
import { newUpdateId } from '../state/stack-state.js';
import { createStackRestoreService } from './stack-restore.js';
import { START_TIME, serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { CarriedHistoryEntry, StackRestoreService } from './types.js';
import type { Principal } from '../kernel/principal.js';

const DEV: StackRef = { org: 'acme', project: 'web', stack: 'dev' };

let fx: ServiceFixture;
let restore: StackRestoreService;
let alice: Principal;
let mallory: Principal;

beforeEach(async () => {
  fx = await serviceFixture();
  restore = createStackRestoreService(fx.deps);
  alice = await fx.user('alice', ['acme']);
  mallory = await fx.user('mallory');
});

afterEach(async () => {
  await fx.close();
});

async function holdLease(ref: StackRef): Promise<void> {
  const stack = await fx.stacks.get(alice, ref);
  await fx.storage.leases.acquire({ stackId: stack.id, updateId: newUpdateId(stack.id), holder: 'bob', durationMs: 60_000 });
}

describe('rollback', () => {
  it('restores version N as a new version whose state equals N, recorded in history', async () => {
    await fx.stacks.create(alice, DEV);
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV, 'djE='));
    await fx.stacks.importDeployment(alice, DEV, emptyStackDeployment(DEV));
    fx.advance(5000);

    const result = await restore.rollback(alice, DEV, 1);

    expect(result.version).toBe(3);
    expect(await fx.stacks.exportDeployment(alice, DEV)).toEqual(await fx.stacks.exportDeployment(alice, DEV, 1));
    expect(await fx.stacks.exportDeployment(alice, DEV, 3)).toEqual(sampleDeployment(DEV, 'djE='));
    const [latest] = await fx.stacks.history(alice, DEV, 1, 1);
    expect(latest).toMatchObject({ id: result.updateId, version: 3, kind: 'import', status: 'succeeded', message: 'Rollback to version 1', requestedBy: 'alice', endedAt: START_TIME + 5000 });
    expect((await fx.stacks.get(alice, DEV)).resourceCount).toBe(4);
  });

  it('restores a version from before a rename under the current name', async () => {
    await fx.stacks.create(alice, DEV);
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV));
    const PROD = { ...DEV, stack: 'prod' };
    await fx.stacks.rename(alice, DEV, { project: 'web', stack: 'prod' });

    await restore.rollback(alice, PROD, 1);

    expect(await fx.stacks.exportDeployment(alice, PROD)).toEqual(sampleDeployment(PROD));
  });

  it('is refused while an update holds the lease, for unknown versions and for outsiders, changing nothing', async () => {
    await fx.stacks.create(alice, DEV);
    await fx.stacks.importDeployment(alice, DEV, sampleDeployment(DEV));
    const before = await fx.snapshot();

    await expect(restore.rollback(alice, DEV, 7)).rejects.toBeInstanceOf(NotFoundError);
    await expect(restore.rollback(alice, DEV, 0)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(restore.rollback(mallory, DEV, 1)).rejects.toBeInstanceOf(NotFoundError);
    await holdLease(DEV);
    const held = await fx.snapshot();
    await expect(restore.rollback(alice, DEV, 1)).rejects.toThrow(/update .* by bob is in progress/);

    expect(Object.keys(held).length).toBeGreaterThan(Object.keys(before).length);
    expect(await fx.snapshot()).toEqual(held);
  });
});

describe('appendHistory', () => {
  const entry = (version: number, deployment?: ReturnType<typeof sampleDeployment>): CarriedHistoryEntry => ({
    version,
    kind: 'update',
    result: 'succeeded',
    startedAt: 1_700_000_000_000 + version,
    endedAt: 1_700_000_060_000 + version,
    message: `change ${version}`,
    environment: { 'git.head': 'abc' },
    config: { 'web:name': { string: 'x', secret: false, object: false } },
    resourceChanges: { create: 4 },
    ...(deployment ? { deployment } : {}),
  });

  it('appends entries in order with their own times, making the last state current', async () => {
    await fx.stacks.create(alice, DEV);

    await restore.appendHistory(alice, DEV, entry(1, sampleDeployment(DEV, 'djE=')));
    await restore.appendHistory(alice, DEV, entry(2, emptyStackDeployment(DEV)));

    const history = await fx.stacks.history(alice, DEV, 1, 10);
    expect(history.map((h) => [h.version, h.kind, h.message, h.startedAt, h.resourceChanges])).toEqual([
      [2, 'update', 'change 2', 1_700_000_000_002, { create: 4 }],
      [1, 'update', 'change 1', 1_700_000_000_001, { create: 4 }],
    ]);
    expect(await fx.stacks.exportDeployment(alice, DEV, 1)).toEqual(sampleDeployment(DEV, 'djE='));
    expect(await fx.stacks.exportDeployment(alice, DEV)).toEqual(emptyStackDeployment(DEV));
  });

  it('refuses an entry out of order (a repeat), a bad entry and a held lease, changing nothing', async () => {
    await fx.stacks.create(alice, DEV);
    await restore.appendHistory(alice, DEV, entry(1, sampleDeployment(DEV)));
    const before = await fx.snapshot();

    await expect(restore.appendHistory(alice, DEV, entry(1, sampleDeployment(DEV)))).rejects.toBeInstanceOf(ConflictError);
    await expect(restore.appendHistory(alice, DEV, { ...entry(2), kind: 'preview' as never })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(restore.appendHistory(alice, DEV, { ...entry(2), endedAt: 0 })).rejects.toBeInstanceOf(InvalidInputError);
    expect(await fx.snapshot()).toEqual(before);
  });
});
