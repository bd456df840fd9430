/**
 * The `deletedWith` resource option, from Pulumi's pkg/engine/lifecycletest/deleted_with_replace_test.go and the
 * engine code it exercises: `stepGenerator.diff` replaces a resource whose `deletedWith` resource is being replaced,
 * `calculateDependentReplacements` condemns it with a delete-before-replace, and `DeleteStep.Apply` skips the
 * provider's Delete of a resource whose `deletedWith` resource is deleted in the same run.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, errorsOf, type ProgramSpec } from './conformance-harness.js';

/** T (replaced when `key` changes), D deleted with T and D2 deleted with D; D and D2 never change inputs. */
function chain(key: string, dbr: boolean): ProgramSpec {
  return {
    resources: [
      { name: 'resT', props: { r_key: key, dbr } },
      { name: 'resD', props: { fixed: 'property' }, deletedWith: 'resT' },
      { name: 'resD2', props: { fixed: 'property' }, deletedWith: 'resD' },
    ],
  };
}

describe('conformance: deletedWith', () => {
  // TestDeletedWithDependentReplacedOnDeleteBeforeReplace with TestDeletedWithTransitiveChain, and
  // TestDeletedWithDependentReplacedOnCreateBeforeDelete
  it.each([
    ['a delete-before-replace', true],
    ['a create-before-delete replacement', false],
  ])('%s of T replaces everything deleted with it, transitively, and only T is deleted by the provider', async (_, deleteBeforeReplace) => {
    const stack = conformanceStack();
    await stack.deploy('update', chain('one', deleteBeforeReplace));
    const oldIds = ['resT', 'resD', 'resD2'].map((n) => stack.resource(n)?.id);
    stack.calls();

    const run = await stack.deploy('update', chain('two', deleteBeforeReplace));

    expect(run.result.errors).toEqual([]);
    const calls = stack.calls();
    expect(calls.filter((c) => c.op === 'delete').map((c) => c.id)).toEqual([oldIds[0]]);
    expect(calls.filter((c) => c.op === 'create')).toHaveLength(3);
    const newIds = ['resT', 'resD', 'resD2'].map((n) => stack.resource(n)?.id);
    for (const [i, id] of newIds.entries()) expect(id).not.toBe(oldIds[i]);
    expect(stack.resource('resD')?.deletedWith).toBe(stack.urn('resT'));
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
  });

  // TestDeletedWithAddedSameStepAsReplace
  it('deletedWith added in the run that replaces T still replaces D', async () => {
    const stack = conformanceStack();
    const spec = (key: string, linked: boolean): ProgramSpec => ({
      resources: [
        { name: 'resT', props: { r_key: key, dbr: true } },
        { name: 'resD', props: { fixed: 'property' }, ...(linked ? { deletedWith: 'resT' } : {}) },
      ],
    });
    await stack.deploy('update', spec('one', false));
    const oldD = stack.resource('resD')?.id;

    const run = await stack.deploy('update', spec('two', true));

    expect(run.result.errors).toEqual([]);
    expect(stack.resource('resD')?.id).not.toBe(oldD);
    expect(stack.resource('resD')?.deletedWith).toBe(stack.urn('resT'));
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
  });

  // TestDeletedWithTargetedDestroy
  it('a targeted destroy of T with --target-dependents deletes D without calling its provider', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', chain('one', false));
    const idT = stack.resource('resT')?.id;
    stack.calls();

    const run = await stack.deploy('destroy', chain('one', false), { targeting: { targets: [stack.urn('resT')], targetDependents: true } });

    expect(run.result.errors).toEqual([]);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id)).toEqual([idT]);
    expect(stack.resources().filter((r) => r.type === 'testprov:index:Thing')).toEqual([]);
  });

  // TestDeletedWithProtectedDependentBlocksReplace
  it('a delete-before-replace of T is refused when a resource deleted with it is protected', async () => {
    const stack = conformanceStack();
    const spec = (key: string): ProgramSpec => ({
      resources: [
        { name: 'resT', props: { r_key: key, dbr: true } },
        { name: 'resD', props: { fixed: 'property' }, deletedWith: 'resT', protect: true },
      ],
    });
    await stack.deploy('update', spec('one'));
    stack.calls();

    const run = await stack.deploy('update', spec('two'));

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).some((e) => e.includes('marked for protection'))).toBe(true);
    expect(stack.calls().filter((c) => c.op === 'delete' || c.op === 'create')).toEqual([]);
  });
});
