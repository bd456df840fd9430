/**
 * Delete-before-replace with dependents, from Pulumi's pkg/engine/lifecycletest/delete_before_replace_test.go and
 * `calculateDependentReplacements` (step_generator.go): a dependent not registered yet whose inputs come from the
 * replaced resource is deleted first when its provider's diff, with its own `replaceOnChanges` applied, says the
 * change replaces it; a dependent already registered this run without the dependency is left alone.
 * (TestDBRProtect is in protect.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, type ProgramSpec } from './conformance-harness.js';

describe('conformance: delete-before-replace with dependents', () => {
  // TestDBRReplaceOnChanges (pulumi/pulumi#19056)
  it("a dependent whose replaceOnChanges covers the input taken from the replaced resource is deleted before it", async () => {
    const stack = conformanceStack();
    const spec = (value: string): ProgramSpec => ({
      resources: [
        { name: 'resA', props: { r_value: value, dbr: true } },
        // `value` is not a replacing property for the provider; only replaceOnChanges makes it one
        { name: 'resB', props: {}, refs: { value: 'resA.r_value' }, replaceOnChanges: ['value'] },
      ],
    });
    await stack.deploy('update', spec('foo'));
    const oldB = stack.resource('resB')?.id;

    const run = await stack.deploy('update', spec('bar'));

    expect(run.result.errors).toEqual([]);
    const deletes = run.steps.filter((s) => s.phase === 'done' && s.op === 'delete-replaced').map((s) => s.urn);
    expect(deletes).toEqual([stack.urn('resB'), stack.urn('resA')]);
    expect(stack.resource('resB')?.id).not.toBe(oldB);
    expect(stack.resource('resB')?.inputs?.value).toBe('bar');
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
  });

  // TestDependencyChangeDBR
  it('a former dependent registered first, no longer depending on the replaced resource, stays the same', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'resA', props: { r_a: 'foo', dbr: true } },
        { name: 'resB', props: {}, refs: { r_dep: 'resA' } },
      ],
    });
    const oldA = stack.resource('resA')?.id;
    const oldB = stack.resource('resB')?.id;
    stack.calls();

    const run = await stack.deploy('update', {
      resources: [
        { name: 'resB', props: { r_dep: oldA } },
        { name: 'resA', props: { r_a: 'bar', dbr: true } },
      ],
    });

    expect(run.result.errors).toEqual([]);
    const bSteps = run.steps.filter((s) => s.phase === 'done' && s.urn === stack.urn('resB')).map((s) => s.op);
    expect(bSteps).toEqual(['same']);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id)).toEqual([oldA]);
    expect(stack.resource('resB')?.id).toBe(oldB);
  });
});
