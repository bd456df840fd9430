/**
 * Aliases, from Pulumi's `step_generator.go` (`generateAliases`, `inheritedChildAlias`) and
 * `lifecycletest/alias_test.go`: a child's own aliases are multiplied out with the alias its parent was matched
 * through, so renaming a component keeps its children even when they are renamed too. References to a renamed
 * resource follow it (`Snapshot.NormalizeURNReferences`, `TestAliasesIn*AreNormalized`): a snapshot written while
 * the renamed resource's step runs still names it by its old URN everywhere, and once its new state is written every
 * dependency, property dependency, parent, provider and deletedWith reference names the new URN. A resource whose
 * provider was renamed by alias is not replaced for it (`stepGenerator.diffProvider`).
 */
import { describe, expect, it } from 'vitest';
import type { ResourceState, UntypedDeployment } from '../../../cli/engine/state/deployment.js';
import { findIntegrityViolation } from '../../../shared/core/checkpoints/deployment-integrity.js';
import type { VersionedDeployment } from '../../../shared/core/checkpoints/types.js';
import { replayJournal } from '../../../shared/core/journal/replayer.js';
import type { JournalEntry } from '../../../shared/core/journal/types.js';
import { COMPONENT, conformanceStack, errorsOf, stateResources, stepList, type ResourceSpec } from './conformance-harness.js';

describe('conformance: aliases', () => {
  it('renaming a component with an alias keeps its children, named after it or not', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'comp', kind: 'component' },
        { name: 'comp-child', parent: 'comp', props: { value: 1 } },
        { name: 'other', parent: 'comp', props: { value: 1 } },
      ],
    });
    const ids = stack.resources().map((r) => r.id).filter(Boolean).sort();

    const run = await stack.deploy('update', {
      resources: [
        { name: 'renamed', kind: 'component', aliases: [{ name: 'comp' }] },
        { name: 'renamed-child', parent: 'renamed', props: { value: 1 } },
        { name: 'other', parent: 'renamed', props: { value: 1 } },
      ],
    });

    expect(run.result.ok).toBe(true);
    expect(stepList(run)).toEqual(['same renamed-child', 'same other']);
    expect(stepList(run, COMPONENT)).toEqual(['same renamed']);
    expect(stack.resources().map((r) => r.id).filter(Boolean).sort()).toEqual(ids);
  });

  it("combines a renamed child's own alias with its renamed parent's alias", async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'comp', kind: 'component' },
        { name: 'x1', parent: 'comp', props: { value: 1 } },
      ],
    });
    const id = stack.resource('x1')?.id;

    const run = await stack.deploy('update', {
      resources: [
        { name: 'renamed', kind: 'component', aliases: [{ name: 'comp' }] },
        { name: 'x2', parent: 'renamed', props: { value: 1 }, aliases: [{ name: 'x1' }] },
      ],
    });

    expect(run.result.ok).toBe(true);
    expect(stepList(run)).toEqual(['same x2']);
    expect(stack.resource('x2')?.id).toBe(id);
    expect(stack.resources().filter((r) => r.urn.endsWith('::x1'))).toEqual([]);
  });
});

/** What refers to the renamed resource: the dependent's spec, and the reference it stores. */
const references: [string, (target: string) => Partial<ResourceSpec>, (b: ResourceState) => unknown][] = [
  ['a dependency', (t) => ({ dependsOn: [t] }), (b) => b.dependencies],
  ['a property dependency', (t) => ({ refs: { upstream: t } }), (b) => b.propertyDependencies?.upstream],
  ['a parent', (t) => ({ parent: t }), (b) => b.parent],
  ['a deletedWith target', (t) => ({ deletedWith: t }), (b) => b.deletedWith],
];

describe('conformance: references follow a rename by alias', () => {
  it.each(references)('a resource renamed and updated keeps %s pointing at it', async (_, refer, stored) => {
    const stack = conformanceStack();
    const program = (name: string, value: number) => ({
      resources: [
        { name, props: { value }, ...(name === 'a2' ? {} : { aliases: [{ name: 'a2' }] }) },
        { name: 'b', props: { value: 1 }, ...refer(name) },
      ],
    });
    await stack.deploy('update', program('a2', 1));
    const ids = stack.resources().map((r) => r.id).filter(Boolean).sort();

    const preview = await stack.deploy('preview', program('a3', 2));
    const run = await stack.deploy('update', program('a3', 2));

    expect(errorsOf(run)).toEqual([]);
    expect(stepList(run)).toEqual(stepList(preview));
    expect(stepList(run)).toEqual(['update a3', 'same b']);
    const b = stack.resources().find((r) => r.urn.endsWith('::b'))!;
    expect(JSON.stringify(stored(b))).toContain(stack.urn('a3'));
    expect(JSON.stringify(stack.state)).not.toContain(stack.urn('a2'));
    expect(stack.resources().map((r) => r.id).filter(Boolean).sort()).toEqual(ids);
  });

  it('a provider renamed by alias keeps its resources, which are updated, not replaced, and refer to its new URN', async () => {
    const stack = conformanceStack();
    const program = (name: string, value: number) => ({
      resources: [
        { name, kind: 'provider' as const, ...(name === 'p2' ? {} : { aliases: [{ name: 'p2' }] }) },
        { name: 'b', props: { value }, provider: name },
      ],
    });
    await stack.deploy('update', program('p2', 1));
    const id = stack.resource('b')?.id;

    const preview = await stack.deploy('preview', program('p3', 2));
    const run = await stack.deploy('update', program('p3', 2));

    expect(errorsOf(run)).toEqual([]);
    expect(stepList(run)).toEqual(stepList(preview));
    expect(stepList(run)).toEqual(['update b']);
    expect(stack.resource('b')?.id).toBe(id);
    expect(stack.resource('b')?.provider).toContain(stack.urn('p3', 'pulumi:providers:testprov'));
    expect(JSON.stringify(stack.state)).not.toContain(stack.urn('p2', 'pulumi:providers:testprov'));
  });
});

describe('conformance: an untargeted resource kept as it is follows the rename of a targeted one', () => {
  const program = (name: string, bValue: number) => ({
    resources: [
      { name, props: { value: 2 }, ...(name === 'a2' ? {} : { aliases: [{ name: 'a2' }] }) },
      { name: 'b', props: { value: bValue }, refs: { upstream: name } },
    ],
  });

  it('in checkpoints', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: program('a2', 1).resources.map((r) => ({ ...r, props: { value: 1 } })) });

    const run = await stack.deploy('update', program('a3', 5), { targeting: { targets: [stack.urn('a3')] } });

    expect(errorsOf(run)).toEqual([]);
    expect(stepList(run)).toEqual(['update a3', 'same b']);
    const b = stack.resources().find((r) => r.urn.endsWith('::b'))!;
    expect(b.inputs?.value).toBe(1);
    expect(b.propertyDependencies?.upstream).toEqual([stack.urn('a3')]);
  });

  it('in journal entries, every prefix of which replays to a sound state', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: program('a2', 1).resources.map((r) => ({ ...r, props: { value: 1 } })) });
    const base = stack.state as VersionedDeployment;
    const entries: JournalEntry[] = [];
    const violations: string[] = [];
    const replayed = () => replayJournal(base, entries, { now: Date.now }) as UntypedDeployment;

    const run = await stack.deploy('update', program('a3', 5), {
      targeting: { targets: [stack.urn('a3')] },
      journal: {
        append: async (batch) => {
          entries.push(...batch);
          const violation = findIntegrityViolation(stateResources(replayed()));
          if (violation) violations.push(violation.message);
        },
      },
    });

    expect(errorsOf(run)).toEqual([]);
    expect(violations).toEqual([]);
    const b = stateResources(replayed()).find((r) => r.urn.endsWith('::b'))!;
    expect(b.propertyDependencies?.upstream).toEqual([stack.urn('a3')]);
  });
});
