import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../shared/core/journal/replayer.js';
import type { JournalEntry } from '../../../shared/core/journal/types.js';
import type { VersionedDeployment } from '../../../shared/core/checkpoints/types.js';
import { DeploymentSerializer, loadDeployment, verifyIntegrity, type Checkpoint, type PendingOperation, type ResourceState, type SecretsCrypter } from './deployment.js';
import { makeSecret } from '../resource/properties.js';
import { SnapshotManager } from './snapshot-manager.js';

const u = (n: string) => `urn:pulumi:dev::p::t:i:R::${n}`;

/** Reversible and deterministic, so both modes store identical text for identical states. */
const crypter: SecretsCrypter = {
  secretsProvider: { type: 'test', state: { k: 1 } },
  encrypt: async (p) => p.map((x) => `enc:${Buffer.from(x).toString('base64')}`),
  decrypt: async (c) => c.map((x) => Buffer.from(x.slice(4), 'base64').toString()),
};

function sorted(values: unknown[]): string[] {
  return values.map((v) => JSON.stringify(v)).sort();
}

/**
 * Drives a checkpoint-mode and a journal-mode SnapshotManager through the same run, the way the step executor
 * does (registrations in program order, creates, updates, renames, create-before-delete replacements, outputs,
 * deletes in reverse order, a crash with an operation in flight, or a refresh resolving base pending operations),
 * and after every save checks that replaying the journal onto the base gives the checkpoint's resources and
 * pending operations, in an order that passes the integrity check.
 */
async function run(seed: number, n: number): Promise<number> {
  let s = seed >>> 0;
  const rand = (k: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % Math.max(1, k);
  const refreshRun = rand(4) === 0;
  const baseStates: ResourceState[] = Array.from({ length: n }, (_, i) => ({
    urn: u(`r${i}`),
    custom: true,
    type: 't:i:R',
    id: `id${i}`,
    inputs: { v: i, ...(rand(4) === 0 ? { pw: makeSecret(`secret-${i}`) } : {}) },
    outputs: { v: i },
    ...(i > 0 && rand(2) === 0 ? { dependencies: [u(`r${rand(i)}`)] } : {}),
    ...(i > 0 && rand(5) === 0 ? { parent: u(`r${rand(i)}`) } : {}),
    ...(rand(10) === 0 ? { delete: true } : {}),
  }));
  const basePending: PendingOperation[] = refreshRun && n > 0 ? [{ resource: { urn: u('lost'), custom: true, type: 't:i:R', inputs: { v: 0 } }, type: 'creating' }] : [];
  const baseText = (await new DeploymentSerializer(crypter).serialize({ resources: baseStates, pendingOperations: basePending }, () => 0)).text;
  const baseDoc = JSON.parse(baseText) as VersionedDeployment;
  const base = await loadDeployment(JSON.parse(baseText), crypter);

  const saved: Checkpoint[] = [];
  const entries: JournalEntry[] = [];
  const cp = new SnapshotManager(base, new DeploymentSerializer(crypter), { save: async (c) => void saved.push(c) }, () => 0);
  const jm = new SnapshotManager(base, new DeploymentSerializer(crypter), undefined, () => 0, 0, {
    persister: { append: async (e) => void entries.push(...e) },
    base: baseDoc.deployment,
  });
  const managers = [cp, jm] as const;
  let checks = 0;
  const check = async () => {
    await Promise.all(managers.map((m) => m.save()));
    const expected = saved.at(-1)!.deployment;
    const replayed = replayJournal(baseDoc, entries, { now: () => 0 }).deployment;
    expect(sorted(replayed.resources ?? [])).toEqual(sorted(expected.resources ?? []));
    expect(sorted(replayed.pending_operations ?? [])).toEqual(sorted(expected.pending_operations ?? []));
    expect(replayed.secrets_providers).toEqual(crypter.secretsProvider);
    expect(() => verifyIntegrity((replayed.resources ?? []) as ResourceState[])).not.toThrow();
    checks++;
  };
  const each = <T>(f: (m: SnapshotManager) => T): [T, T] => [f(cp), f(jm)];

  if (refreshRun) {
    each((m) => m.clearBasePending());
    for (const st of base.resources) {
      if (st.delete) continue;
      const c = rand(3);
      if (c === 0) each((m) => m.replaceBase(st, { ...st, outputs: { v: -1, pw: makeSecret('refreshed') } }));
      if (rand(4) === 0) await check();
    }
    await check();
    return checks;
  }

  const renamed = new Map<string, string>();
  const registered = new Set<string>();
  const live = (urn: string) => renamed.get(urn) ?? urn;
  const keep = (urns: string[] | undefined) => (urns ?? []).map(live).filter((x) => registered.has(x));
  const pendingDeletes: ResourceState[] = base.resources.filter((r) => r.delete);
  const unregistered: ResourceState[] = [];
  let created = 0;
  let crashed = false;

  for (const st of base.resources) {
    if (st.delete) continue;
    const deps = keep(st.dependencies);
    const parent = st.parent ? keep([st.parent])[0] : undefined;
    const intact = JSON.stringify(deps) === JSON.stringify(st.dependencies ?? []) && parent === st.parent;
    const fresh = (extra: Partial<ResourceState>): ResourceState => {
      const next: ResourceState = { ...st, ...extra };
      if (deps.length) next.dependencies = deps;
      else delete next.dependencies;
      if (parent) next.parent = parent;
      else delete next.parent;
      return next;
    };
    switch (rand(6)) {
      case 0:
        unregistered.push(st);
        continue;
      case 1:
        each((m) => m.recordNew(intact ? st : fresh({}), st));
        break;
      case 2: {
        const next = fresh({ outputs: { v: st.outputs!.v as number, changed: true } });
        const ops = each((m) => m.beginOp(st, 'updating'));
        if (rand(2) === 0) await check();
        each((m) => m.recordNew(next, st));
        cp.endOp(ops[0]);
        jm.endOp(ops[1]);
        break;
      }
      case 3: {
        const marked = { ...st, delete: true };
        each((m) => m.replaceBase(st, marked));
        pendingDeletes.push(marked);
        const next = fresh({ id: `${st.id}-new` });
        const ops = each((m) => m.beginOp(next, 'creating'));
        each((m) => m.recordNew(next));
        cp.endOp(ops[0]);
        jm.endOp(ops[1]);
        break;
      }
      case 4: {
        const to = `${st.urn}-renamed`;
        renamed.set(st.urn, to);
        each((m) => m.rename(st.urn, to));
        each((m) => m.recordNew(fresh({ urn: to }), st));
        registered.add(to);
        break;
      }
      default: {
        const next = intact ? st : fresh({});
        each((m) => m.recordNew(next, st));
        if (rand(2) === 0) each((m) => m.replaceNew(next, { ...next, outputs: { v: 1, out: makeSecret('o') } }));
      }
    }
    registered.add(live(st.urn));
    if (rand(3) === 0) {
      const urn = u(`n${created++}`);
      const deps2 = [...registered].filter(() => rand(3) === 0).slice(0, 2);
      const next: ResourceState = { urn, custom: true, type: 't:i:R', id: urn, inputs: { v: 1 }, ...(deps2.length ? { dependencies: deps2 } : {}) };
      const ops = each((m) => m.beginOp({ urn, custom: true, type: 't:i:R', inputs: { v: 1 } }, 'creating'));
      if (rand(20) === 0) {
        crashed = true;
        break;
      }
      each((m) => m.recordNew(next));
      cp.endOp(ops[0]);
      jm.endOp(ops[1]);
      registered.add(urn);
    }
    if (rand(3) === 0) await check();
  }

  if (!crashed) {
    const position = (r: ResourceState) => base.resources.findIndex((b) => b.urn === r.urn);
    for (const st of [...pendingDeletes, ...unregistered].sort((a, b) => position(b) - position(a))) {
      const ops = each((m) => m.beginOp(st, 'deleting'));
      each((m) => m.removeBase(st));
      cp.endOp(ops[0]);
      jm.endOp(ops[1]);
      if (rand(4) === 0) await check();
    }
  }
  await check();
  return checks;
}

describe('SnapshotManager journal mode', () => {
  it('replaying its journal gives the checkpoint state after every save, on random runs', async () => {
    let total = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 0, max: 40 }), async (seed, n) => {
        total += await run(seed, n);
      }),
      { numRuns: 150 },
    );
    expect(total).toBeGreaterThan(150);
  });

  it('sends only what changed: unchanged states stay out of the journal', async () => {
    const states: ResourceState[] = Array.from({ length: 200 }, (_, i) => ({ urn: u(`r${i}`), custom: true, type: 't:i:R', id: `id${i}`, inputs: { v: i } }));
    const text = (await new DeploymentSerializer(crypter).serialize({ resources: states, pendingOperations: [] }, () => 0)).text;
    const base = await loadDeployment(JSON.parse(text), crypter);
    const entries: JournalEntry[] = [];
    const m = new SnapshotManager(base, new DeploymentSerializer(crypter), undefined, () => 0, 0, { persister: { append: async (e) => void entries.push(...e) }, base: JSON.parse(text).deployment });
    base.resources.forEach((r, i) => m.recordNew(i === 7 ? { ...r, inputs: { v: 'changed' } } : { ...r, inputs: { ...r.inputs } }, r));
    await m.save();
    expect(entries.filter((e) => e.state).map((e) => e.state!.urn)).toEqual([u('r7')]);
    expect(entries[0]).toMatchObject({ kind: 6, secretsProvider: crypter.secretsProvider });
  });

  it('removes states recorded this run, held-back sames included, as a destroy that ran the program does', async () => {
    const states: ResourceState[] = [0, 1, 2].map((i) => ({ urn: u(`r${i}`), custom: true, type: 't:i:R', id: `id${i}`, inputs: { v: i } }));
    const text = (await new DeploymentSerializer(crypter).serialize({ resources: states, pendingOperations: [] }, () => 0)).text;
    const baseDoc = JSON.parse(text) as VersionedDeployment;
    const base = await loadDeployment(JSON.parse(text), crypter);
    const saved: Checkpoint[] = [];
    const entries: JournalEntry[] = [];
    const cp = new SnapshotManager(base, new DeploymentSerializer(crypter), { save: async (c) => void saved.push(c) }, () => 0);
    const jm = new SnapshotManager(base, new DeploymentSerializer(crypter), undefined, () => 0, 0, { persister: { append: async (e) => void entries.push(...e) }, base: baseDoc.deployment });
    const both = (f: (m: SnapshotManager) => void) => [cp, jm].forEach(f);
    const replayed = async () => {
      await Promise.all([cp.save(), jm.save()]);
      return { journal: sorted(replayJournal(baseDoc, entries, { now: () => 0 }).deployment.resources ?? []), checkpoint: sorted(saved.at(-1)!.deployment.resources ?? []) };
    };
    const [r0, r1, r2] = base.resources as [ResourceState, ResourceState, ResourceState];
    // unchanged and referred to by nothing: held back, never sent before its removal
    const kept = { ...r2, inputs: { ...r2.inputs } };
    const changed = { ...r1, outputs: { v: 'read' } };
    const created: ResourceState = { urn: u('n0'), custom: false, type: 't:i:C', dependencies: [u('r1')] };
    both((m) => m.recordNew(kept, r2));
    both((m) => m.recordNew(changed, r1));
    both((m) => m.recordNew(created));
    const afterRegistrations = await replayed();

    for (const state of [created, changed, kept, r0]) both((m) => m.remove(state));
    const afterDeletes = await replayed();

    expect(afterRegistrations.journal).toEqual(afterRegistrations.checkpoint);
    expect(afterRegistrations.journal).toHaveLength(4);
    expect(afterDeletes).toEqual({ journal: [], checkpoint: [] });
  });
});
