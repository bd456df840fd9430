/**
 * Replacement, from Pulumi's `step_generator.go` (`generateStepsFromDiff`, `calculateDependentReplacements`),
 * `step.go` (`CreateStep.Apply` marks the old resource for deletion only once the new one exists) and the
 * lifecycle tests of `--replace`, `--target-replace`, taint and delete-before-replace.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../../../cli/engine/state/deployment.js';
import { conformanceStack, opsOf, statePending, stepList, type ProgramSpec } from './conformance-harness.js';

const pair: ProgramSpec = {
  resources: [
    { name: 'a', props: { value: 1 } },
    { name: 'b', props: { value: 1 }, refs: { upstream: 'a' } },
  ],
};

describe('conformance: forced replacement', () => {
  it('--replace replaces a resource that has no diff, creating before deleting', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', pair);
    const oldId = stack.resource('a')?.id;
    stack.calls();

    const run = await stack.deploy('update', pair, { targeting: { replaces: [stack.urn('a')] } });

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['create-replacement', 'replace', 'delete-replaced']);
    expect(stack.calls().filter((c) => c.urn === stack.urn('a')).map((c) => c.op)).toEqual(['create', 'delete']);
    expect(stack.resource('a')?.id).not.toBe(oldId);
    expect(stack.resources().filter((r) => r.delete)).toEqual([]);
  });

  it('--target-replace replaces the resource and changes nothing else', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', pair);
    const changed: ProgramSpec = { resources: [pair.resources[0]!, { ...pair.resources[1]!, props: { value: 2 } }] };

    const run = await stack.deploy('update', changed, { targeting: { targets: [stack.urn('a')], replaces: [stack.urn('a')] } });

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toContain('replace');
    expect(opsOf(run, 'b')).toEqual(['same']);
    expect(stack.resource('b')?.inputs?.value).toBe(1);
  });

  it('replaces a resource marked tainted in the state, and the new state is not tainted', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', pair);
    const oldId = stack.resource('a')?.id;
    const deployment = stack.state!.deployment as { resources: (ResourceState & { taint?: boolean })[] };
    deployment.resources.find((r) => r.urn === stack.urn('a'))!.taint = true;

    const preview = await stack.deploy('preview', pair);
    const run = await stack.deploy('update', pair);

    expect(opsOf(preview, 'a')).toContain('replace');
    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toContain('replace');
    const a = stack.resource('a') as ResourceState & { taint?: boolean };
    expect(a.id).not.toBe(oldId);
    expect(a.taint).toBeUndefined();
  });
});

describe('conformance: delete-before-replace', () => {
  it('two delete-before-replace resources sharing a dependent replace it once', async () => {
    const stack = conformanceStack();
    const shape = (key: string): ProgramSpec => ({
      resources: [
        { name: 'x', props: { r_key: key, dbr: true } },
        { name: 'y', props: { r_key: key, dbr: true } },
        { name: 'd', props: { value: 1 }, refs: { r_x: 'x', r_y: 'y' } },
      ],
    });
    await stack.deploy('update', shape('one'));
    stack.calls();

    const run = await stack.deploy('update', shape('two'));

    expect(run.result.ok).toBe(true);
    expect(run.result.errors).toEqual([]);
    const calls = stack.calls();
    expect(calls.filter((c) => c.urn === stack.urn('d')).map((c) => c.op)).toEqual(['delete', 'create']);
    const deletes = calls.filter((c) => c.op === 'delete').map((c) => c.urn);
    expect(deletes.indexOf(stack.urn('d'))).toBeLessThan(deletes.indexOf(stack.urn('x')));
    expect(deletes.indexOf(stack.urn('d'))).toBeLessThan(deletes.indexOf(stack.urn('y')));
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
    expect(stack.resource('d')?.inputs?.r_x).toBe(stack.resource('x')?.id);
  });

  it('a delete-before-replace whose create fails keeps the old state pending replacement, and the next run recovers', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'one', dbr: true } }] });

    const failed = await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'two', dbr: true, fail: 'create' } }] });
    const afterFailure = stack.resources().filter((r) => r.urn === stack.urn('a'));
    const recovered = await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'two', dbr: true } }] });

    expect(failed.result.ok).toBe(false);
    expect(afterFailure).toHaveLength(1);
    expect(afterFailure[0]?.pendingReplacement).toBe(true);
    expect(afterFailure[0]?.delete).toBeUndefined();
    expect(recovered.result.ok).toBe(true);
    expect(stack.resources().filter((r) => r.urn === stack.urn('a'))).toHaveLength(1);
    expect(stack.resource('a')?.inputs?.r_key).toBe('two');
    expect(statePending(stack.state)).toEqual([]);
  });
});

describe('conformance: create-before-delete replacement that fails', () => {
  it('leaves the old resource live (not marked for deletion), and the next run replaces it', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'one' } }] });
    const oldId = stack.resource('a')?.id;
    stack.calls();

    const failed = await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'two', fail: 'create' } }] });
    const afterFailure = stack.resources().filter((r) => r.urn === stack.urn('a'));
    const recovered = await stack.deploy('update', { resources: [{ name: 'a', props: { r_key: 'two' } }] });

    expect(failed.result.ok).toBe(false);
    expect(afterFailure).toHaveLength(1);
    expect(afterFailure[0]?.id).toBe(oldId);
    expect(afterFailure[0]?.delete).toBeUndefined();
    expect(recovered.result.ok).toBe(true);
    expect(stepList(recovered)).toEqual(['create-replacement a', 'replace a', 'delete-replaced a']);
    expect(stack.resources().filter((r) => r.urn === stack.urn('a'))).toHaveLength(1);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id)).toEqual([oldId]);
  });
});
