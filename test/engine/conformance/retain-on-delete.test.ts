/**
 * The `retainOnDelete` resource option, from Pulumi's pkg/engine/lifecycletest/retain_on_delete_test.go and
 * `DeleteStep.Apply` (step.go): a retained resource leaves the state on a delete, a replacement (either order) or a
 * destroy, and its provider's Delete is never called.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, type ProgramSpec } from './conformance-harness.js';

const retained = (props: Record<string, unknown>): ProgramSpec => ({ resources: [{ name: 'resA', props, retainOnDelete: true }] });

describe('conformance: retainOnDelete', () => {
  // TestRetainOnDelete
  it('a create-before-delete replacement and a later removal never call Delete, and the state ends empty', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', retained({ r_foo: 'bar' }));
    const firstId = stack.resource('resA')?.id;

    const replaced = await stack.deploy('update', retained({ r_foo: 'baz' }));
    const secondId = stack.resource('resA')?.id;
    const removed = await stack.deploy('update', { resources: [] });

    expect(replaced.result.errors).toEqual([]);
    expect(secondId).not.toBe(firstId);
    expect(removed.result.errors).toEqual([]);
    expect(stack.calls().map((c) => c.op)).toEqual(['create', 'create']);
    expect(stack.resources().filter((r) => r.type === 'testprov:index:Thing')).toEqual([]);
  });

  // TestRetainOnDelete, with the delete-before-replace order and a destroy (DeleteStep.Apply skips Delete for
  // every retained resource, replacing or not)
  it('a delete-before-replace and a destroy never call Delete either', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', retained({ r_foo: 'bar', dbr: true }));

    const replaced = await stack.deploy('update', retained({ r_foo: 'baz', dbr: true }));
    const afterReplace = stack.resources().filter((r) => r.urn === stack.urn('resA'));
    const destroyed = await stack.deploy('destroy', retained({ r_foo: 'baz', dbr: true }));

    expect(replaced.result.errors).toEqual([]);
    expect(afterReplace).toHaveLength(1);
    expect(afterReplace[0]?.inputs?.r_foo).toBe('baz');
    expect(destroyed.result.errors).toEqual([]);
    expect(stack.calls().map((c) => c.op)).toEqual(['create', 'create']);
    expect(stack.resources().filter((r) => r.type === 'testprov:index:Thing')).toEqual([]);
  });
});
