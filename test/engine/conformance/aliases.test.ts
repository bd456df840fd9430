/**
 * Aliases, from Pulumi's `step_generator.go` (`generateAliases`, `inheritedChildAlias`) and
 * `lifecycletest/alias_test.go`: a child's own aliases are multiplied out with the alias its parent was matched
 * through, so renaming a component keeps its children even when they are renamed too.
 */
import { describe, expect, it } from 'vitest';
import { COMPONENT, conformanceStack, stepList } from './conformance-harness.js';

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
