import { describe, expect, it } from 'vitest';
import { DeploymentSerializer, type Checkpoint, type ResourceState } from './deployment.js';
import { SnapshotManager } from './snapshot-manager.js';

const crypter = { encrypt: async (p: string[]) => p, decrypt: async (c: string[]) => c };

function res(name: string, extra: Partial<ResourceState> = {}): ResourceState {
  return { urn: `urn:pulumi:d::p::t:index:T::${name}`, custom: false, type: 't:index:T', ...extra };
}

function urns(c: Checkpoint): string[] {
  return ((c.deployment.resources ?? []) as ResourceState[]).map((r) => r.urn.split('::').pop()!);
}

describe('SnapshotManager', () => {
  it('coalesces saves issued while one is in flight, and every caller sees its change persisted', async () => {
    const saved: Checkpoint[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const persister = {
      save: async (c: Checkpoint) => {
        saved.push(c);
        if (saved.length === 1) await gate;
      },
    };
    const m = new SnapshotManager({ resources: [], pendingOperations: [] }, new DeploymentSerializer(crypter), persister, () => 0);
    m.recordNew(res('a'));
    const first = m.save();
    await new Promise((r) => setTimeout(r, 10));
    const later = ['b', 'c', 'd'].map((n) => {
      m.recordNew(res(n));
      return m.save();
    });
    release();
    await Promise.all([first, ...later]);
    expect(saved.length).toBe(2);
    expect(urns(saved[1])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('orders new states before untouched base states and drops superseded ones', async () => {
    const saved: Checkpoint[] = [];
    const oldA = res('a');
    const oldB = res('b');
    const m = new SnapshotManager({ resources: [oldA, oldB], pendingOperations: [] }, new DeploymentSerializer(crypter), { save: async (c) => void saved.push(c) }, () => 0);
    m.recordNew(res('a', { protect: true }), oldA);
    m.replaceBase(oldB, { ...oldB, delete: true });
    await m.save();
    const resources = saved[0].deployment.resources as ResourceState[];
    expect(resources.map((r) => [r.urn.split('::').pop(), !!r.protect, !!r.delete])).toEqual([
      ['a', true, false],
      ['b', false, true],
    ]);
  });

  it('fails every later save once a save failed', async () => {
    const m = new SnapshotManager({ resources: [], pendingOperations: [] }, new DeploymentSerializer(crypter), { save: async () => Promise.reject(new Error('disk full')) }, () => 0);
    await expect(m.save()).rejects.toThrow('disk full');
    await expect(m.save()).rejects.toThrow('disk full');
  });

  it('in journal mode, refuses a save that breaks a reference, and checks the order of the whole state at the end', async () => {
    const journal = () => ({ persister: { append: async () => undefined }, base: undefined });
    const empty = { resources: [], pendingOperations: [] };

    const broken = new SnapshotManager(empty, new DeploymentSerializer(crypter), undefined, () => 0, 0, journal());
    broken.recordNew(res('b', { dependencies: [res('ghost').urn] }));
    await expect(broken.save()).rejects.toThrow(/unknown resource/);

    // `a` depends on `b`, which is recorded after it: every reference exists, so only the full check sees the order.
    const misordered = new SnapshotManager(empty, new DeploymentSerializer(crypter), undefined, () => 0, 0, journal());
    misordered.recordNew(res('a', { dependencies: [res('b').urn] }));
    misordered.recordNew(res('b'));
    await expect(misordered.save()).resolves.toBeUndefined();
    await expect(misordered.saveFinal()).rejects.toThrow(/resource #0 .*dependenc/s);
  });
});
