import { describe, expect, it } from 'vitest';
import { SnapshotIntegrityError, type ResourceState } from './deployment.js';
import { SnapshotIntegrity } from './snapshot-integrity.js';

const stack: ResourceState = { urn: 'urn:pulumi:s::p::pulumi:pulumi:Stack::p-s', custom: false, type: 'pulumi:pulumi:Stack' };
const prov: ResourceState = { urn: 'urn:pulumi:s::p::pulumi:providers:t::default', custom: true, id: 'p1', type: 'pulumi:providers:t', parent: stack.urn };
const thing = (name: string, extra: Partial<ResourceState> = {}): ResourceState => ({
  urn: `urn:pulumi:s::p::t:index:Thing::${name}`,
  custom: true,
  id: name,
  type: 't:index:Thing',
  parent: stack.urn,
  provider: `${prov.urn}::p1`,
  ...extra,
});

describe('SnapshotIntegrity', () => {
  it('accepts states whose references are in the snapshot, including a replacement marked for deletion', () => {
    const a = thing('a');
    const integrity = new SnapshotIntegrity([stack, prov, a]);

    integrity.add(thing('b', { dependencies: [a.urn] }));
    integrity.remove(a);
    integrity.add({ ...a, delete: true });
    integrity.add({ ...a, id: 'a2' });

    expect(() => integrity.verify()).not.toThrow();
  });

  it('refuses an added state with an unknown dependency, parent or provider', () => {
    const cases: Partial<ResourceState>[] = [
      { dependencies: ['urn:pulumi:s::p::t:index:Thing::ghost'] },
      { parent: 'urn:pulumi:s::p::t:index:Thing::ghost' },
      { provider: `${prov.urn}::other-id` },
      { propertyDependencies: { x: ['urn:pulumi:s::p::t:index:Thing::ghost'] } },
    ];
    for (const extra of cases) {
      const integrity = new SnapshotIntegrity([stack, prov]);
      integrity.add(thing('b', extra));
      expect(() => integrity.verify(), JSON.stringify(extra)).toThrow(SnapshotIntegrityError);
    }
  });

  it('refuses a URN live twice, and a removal that leaves a reference or a provider user behind', () => {
    const a = thing('a');
    const b = thing('b', { dependencies: [a.urn] });

    const duplicated = new SnapshotIntegrity([stack, prov, a]);
    duplicated.add({ ...a, id: 'again' });
    expect(() => duplicated.verify()).toThrow(/duplicated/);

    const dangling = new SnapshotIntegrity([stack, prov, a, b]);
    dangling.remove(a);
    expect(() => dangling.verify()).toThrow(/still refer/);

    const orphaned = new SnapshotIntegrity([stack, prov, a]);
    orphaned.remove(prov);
    expect(() => orphaned.verify()).toThrow(/still use/);
  });

  it('checks each change once: a fault reported by one verify is not reported again', () => {
    const integrity = new SnapshotIntegrity([stack, prov]);
    const broken = thing('b', { dependencies: ['urn:pulumi:s::p::t:index:Thing::ghost'] });
    integrity.add(broken);
    expect(() => integrity.verify()).toThrow(SnapshotIntegrityError);

    integrity.remove(broken);
    integrity.add(thing('c'));
    expect(() => integrity.verify()).not.toThrow();
  });
});
