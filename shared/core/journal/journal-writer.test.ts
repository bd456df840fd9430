import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JournalWriter, replayJournal } from './index.js';
import type { ResourceV3, VersionedDeployment } from '../checkpoints/types.js';

const urn = (n: string) => `urn:pulumi:dev::p::t:i:R::${n}`;

/** Every dependency, parent and property dependency of a resource appears earlier in the list. */
function ordered(resources: readonly ResourceV3[]): boolean {
  const seen = new Set<string>();
  for (const r of resources) {
    const refs = [...(r.dependencies ?? []), ...(r.parent ? [r.parent] : []), ...Object.values(r.propertyDependencies ?? {}).flat()];
    if (refs.some((d) => !seen.has(d as string))) return false;
    seen.add(r.urn);
  }
  return true;
}

describe('journal writer', () => {
  it('sends only what changed and still replays to the full state in dependency order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer(), fc.nat(), (n, seed, which) => {
        let s = seed >>> 0;
        const rand = (k: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % Math.max(1, k);
        const base: ResourceV3[] = Array.from({ length: n }, (_, i) => {
          const r: ResourceV3 = { urn: urn(`r${i}`), custom: true, type: 't:i:R', outputs: { v: i } };
          if (i > 0 && rand(2) === 0) r.dependencies = [urn(`r${rand(i)}`)];
          if (i > 0 && rand(5) === 0) r.parent = urn(`r${rand(i)}`);
          return r;
        });
        const baseDoc: VersionedDeployment = { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources: base, metadata: {} } };
        const changed = which % n;

        const writer = new JournalWriter();
        const expected = new Map<string, ResourceV3>();
        base.forEach((r, i) => {
          if (i === changed) {
            const state = { ...r, outputs: { v: -1 } };
            const op = writer.begin({ resource: state, type: 'updating' });
            writer.success(op, { state, old: { base: i } });
            expected.set(r.urn, state);
          } else {
            writer.same(i, { ...r }, false);
            expected.set(r.urn, r);
          }
        });
        const created: ResourceV3 = { urn: urn('new'), custom: true, type: 't:i:R', dependencies: [urn(`r${rand(n)}`)] };
        const op = writer.begin({ resource: created, type: 'creating' });
        writer.success(op, { state: created });
        expected.set(created.urn, created);

        const entries = writer.take();
        const replayed = replayJournal(baseDoc, entries, { now: () => 0 }).deployment.resources ?? [];
        expect(new Map(replayed.map((r) => [r.urn, r]))).toEqual(expected);
        expect(replayed).toHaveLength(expected.size);
        expect(ordered(replayed)).toBe(true);
        // Held-back states are sent only for the changed resource's and the new resource's ancestry.
        const byUrn = new Map(base.map((r) => [r.urn, r]));
        const ancestry = new Set<string>();
        const visit = (r: ResourceV3) => {
          for (const d of [...(r.dependencies ?? []), ...(r.parent ? [r.parent] : [])]) {
            if (d === base[changed]!.urn || ancestry.has(d)) continue;
            ancestry.add(d);
            visit(byUrn.get(d)!);
          }
        };
        visit(base[changed]!);
        visit(created);
        expect(entries.filter((e) => e.state).length).toBe(2 + ancestry.size);
      }),
      { numRuns: 200 },
    );
  });

  it('sends a held-back state when its outputs change', () => {
    const base: ResourceV3[] = [{ urn: urn('a'), custom: false, type: 't:i:C' }];
    const writer = new JournalWriter();
    const op = writer.same(0, { ...base[0]! }, false);
    expect(writer.take()).toEqual([]);
    writer.outputs({ op }, { ...base[0]!, outputs: { x: 1 } });
    const replayed = replayJournal(
      { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources: base, metadata: {} } },
      writer.take(),
      { now: () => 0 },
    );
    expect(replayed.deployment.resources).toEqual([{ ...base[0], outputs: { x: 1 } }]);
  });

  it('keeps the stack first when an update re-creates a default provider after all but the stack was deleted (Pulumi partial_state step 3)', () => {
    const stack: ResourceV3 = { urn: 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev', custom: false, type: 'pulumi:pulumi:Stack' };
    const provider: ResourceV3 = { urn: 'urn:pulumi:dev::p::pulumi:providers:t::default', custom: true, id: 'pid', type: 'pulumi:providers:t' };
    const thing: ResourceV3 = { urn: urn('a'), custom: true, id: 'a1', type: 't:i:R', parent: stack.urn, provider: `${provider.urn}::pid` };
    const writer = new JournalWriter();
    writer.same(0, { ...stack }, false);
    for (const state of [provider, thing]) writer.success(writer.begin({ resource: state, type: 'creating' }), { state });
    const replayed = replayJournal(
      { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources: [stack], metadata: {} } },
      writer.take(),
      { now: () => 0 },
    );
    expect(replayed.deployment.resources!.map((r) => r.type)).toEqual(['pulumi:pulumi:Stack', 'pulumi:providers:t', 't:i:R']);
  });
});
