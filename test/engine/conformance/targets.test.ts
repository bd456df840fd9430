/**
 * Targets and excludes, from Pulumi's `lifecycletest/target_test.go` and `step_generator.go`
 * (`isTargetedForUpdate`, `GenerateDeletes`, `checkTargets`): a target that names nothing is an error, untargeted
 * resources keep their state, creates a target needs are refused, and deletes beyond the targets need
 * `--target-dependents`.
 */
import { describe, expect, it } from 'vitest';
import { UNKNOWN } from '../../../cli/engine/resource/properties.js';
import { conformanceStack, errorsOf, opsOf, persistedUnknown, statePending, stepList, type ProgramSpec } from './conformance-harness.js';

const base: ProgramSpec = {
  resources: [
    { name: 'a', props: { value: 1 } },
    { name: 'b', props: { value: 1 }, refs: { upstream: 'a' } },
    { name: 'c', props: { value: 1 } },
  ],
  outputs: { aId: 'a', cValue: 'c.value' },
};

describe('conformance: --target and --exclude on up and preview', () => {
  it('fails a run whose --target names no resource, naming the target, and changes nothing', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const before = stack.resources();
    const missing = stack.urn('nope');
    stack.calls();

    const run = await stack.deploy('update', { ...base, resources: [...base.resources, { name: 'd', props: { value: 1 } }] }, { targeting: { targets: [missing] } });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).join('\n')).toContain(`Target '${missing}' could not be found in the stack.`);
    expect(stack.calls().filter((c) => c.op !== 'read')).toEqual([]);
    expect(stack.resources()).toEqual(before);
  });

  it('previews a --target that names nothing as a failure too', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);

    const run = await stack.deploy('preview', base, { targeting: { targets: [stack.urn('nope')] } });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).join('\n')).toContain('could not be found in the stack');
  });

  it('changes only the target; an untargeted new resource is not created and its unknown id is never stored', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const changed: ProgramSpec = {
      resources: [
        { name: 'a', props: { value: 2 } },
        { name: 'b', props: { value: 2 }, refs: { upstream: 'a' } },
        { name: 'c', props: { value: 1 } },
        { name: 'new', props: { value: 1 } },
      ],
      outputs: { aId: 'a', cValue: 'c.value', newId: 'new' },
    };

    const run = await stack.deploy('update', changed, { targeting: { targets: [stack.urn('a')] } });

    expect(run.result.ok).toBe(true);
    expect(stepList(run).filter((s) => !s.startsWith('same'))).toEqual(['update a']);
    expect(stack.resource('b')?.inputs?.value).toBe(1);
    expect(stack.resource('new')).toBeUndefined();
    expect(persistedUnknown(run)).toBe(false);
    expect(JSON.stringify(run.result.outputs)).not.toContain(UNKNOWN);
    expect(stack.outputs().newId).toBeUndefined();
    expect(stack.outputs().aId).toBe(stack.resource('a')?.id);
  });

  it('refuses a targeted change that needs an untargeted create, naming both', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const needsNew: ProgramSpec = {
      resources: [
        { name: 'n', props: { value: 1 } },
        { name: 'a', props: { value: 2 }, refs: { upstream: 'n' } },
        { name: 'b', props: { value: 1 }, refs: { upstream: 'a' } },
        { name: 'c', props: { value: 1 } },
      ],
    };

    const run = await stack.deploy('update', needsNew, { targeting: { targets: [stack.urn('a')] } });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).join('\n')).toContain(`Resource '${stack.urn('a')}' depends on '${stack.urn('n')}' which was was not specified in --target list.`);
    expect(stack.resource('a')?.inputs?.value).toBe(1);
    expect(persistedUnknown(run)).toBe(false);
  });

  it('--target-dependents also changes what depends on the target', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const changed: ProgramSpec = {
      resources: [
        { name: 'a', props: { value: 2 } },
        { name: 'b', props: { value: 2 }, refs: { upstream: 'a' } },
        { name: 'c', props: { value: 2 } },
      ],
    };

    const run = await stack.deploy('update', changed, { targeting: { targets: [stack.urn('a')], targetDependents: true } });

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['update']);
    expect(opsOf(run, 'b')).toEqual(['update']);
    expect(opsOf(run, 'c')).toEqual(['same']);
    expect(stack.resource('c')?.inputs?.value).toBe(1);
  });

  it('accepts * and ** globs as targets', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const changed: ProgramSpec = { resources: base.resources.map((r) => ({ ...r, props: { value: 3 } })) };

    const run = await stack.deploy('update', changed, { targeting: { targets: ['**::c'] } });

    expect(run.result.ok).toBe(true);
    expect(stepList(run).filter((s) => !s.startsWith('same'))).toEqual(['update c']);
  });

  it('--exclude leaves the excluded resource and, with --exclude-dependents, its dependents alone', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const changed: ProgramSpec = { resources: base.resources.map((r) => ({ ...r, props: { value: 4 } })) };

    const plain = await stack.deploy('preview', changed, { targeting: { excludes: [stack.urn('a')] } });
    const withDependents = await stack.deploy('update', changed, { targeting: { excludes: [stack.urn('a')], excludeDependents: true } });

    expect(plain.result.ok).toBe(true);
    expect(stepList(plain).filter((s) => !s.startsWith('same')).sort()).toEqual(['update b', 'update c']);
    expect(withDependents.result.ok).toBe(true);
    expect(stepList(withDependents).filter((s) => !s.startsWith('same'))).toEqual(['update c']);
    expect(stack.resource('a')?.inputs?.value).toBe(1);
    expect(stack.resource('b')?.inputs?.value).toBe(1);
  });

  it('a targeted update deletes a removed resource only when it is targeted', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const withoutC: ProgramSpec = { resources: base.resources.slice(0, 2) };

    const untargeted = await stack.deploy('update', withoutC, { targeting: { targets: [stack.urn('a')] } });
    const targeted = await stack.deploy('update', withoutC, { targeting: { targets: [stack.urn('c')] } });

    expect(untargeted.result.ok).toBe(true);
    expect(opsOf(untargeted, 'c')).toEqual([]);
    expect(targeted.result.ok).toBe(true);
    expect(opsOf(targeted, 'c')).toEqual(['delete']);
    expect(stack.resource('c')).toBeUndefined();
    expect(stack.resource('a')).toBeDefined();
  });
});

describe('conformance: destroy --target', () => {
  it('refuses up front when dependents are not targeted, naming each, and changes nothing', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    const before = stack.resources();
    stack.calls();

    const run = await stack.deploy('destroy', base, { targeting: { targets: [stack.urn('a')] } });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).join('\n')).toContain(`Resource '${stack.urn('b')}' will be destroyed but was not specified in --target list.`);
    expect(stack.calls().filter((c) => c.op === 'delete')).toEqual([]);
    expect(stack.resources()).toEqual(before);
    expect(statePending(stack.state)).toEqual([]);
  });

  it('with --target-dependents deletes the target and its dependents, dependents first', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', base);
    stack.calls();

    const run = await stack.deploy('destroy', base, { targeting: { targets: [stack.urn('a')], targetDependents: true } });

    expect(run.result.ok).toBe(true);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.urn)).toEqual([stack.urn('b'), stack.urn('a')]);
    expect(stack.resource('a')).toBeUndefined();
    expect(stack.resource('b')).toBeUndefined();
    expect(stack.resource('c')).toBeDefined();
    expect(statePending(stack.state)).toEqual([]);
  });

  it('--exclude-protected keeps protected resources and what they depend on', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'a', props: { value: 1 } },
        { name: 'p', props: { value: 1 }, refs: { upstream: 'a' }, protect: true },
        { name: 'c', props: { value: 1 } },
      ],
    });

    const run = await stack.deploy('destroy', base, { excludeProtected: true });

    expect(run.result.ok).toBe(true);
    expect(stack.resource('c')).toBeUndefined();
    expect(stack.resource('p')).toBeDefined();
    expect(stack.resource('a')).toBeDefined();
  });
});

describe('conformance: destroy with protected resources', () => {
  it('deletes everything unprotected, reports each protected resource and fails', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'p1', props: { value: 1 }, protect: true },
        { name: 'p2', props: { value: 1 }, protect: true },
        { name: 'slow', props: { value: 1, delay: 1500 } },
        // deleted only once `slow` is gone, well after the protected deletes were refused
        { name: 'free', props: { value: 1 }, dependsOn: ['slow'] },
      ],
    });

    const run = await stack.deploy('destroy', base);

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).filter((e) => e.includes('currently marked for protection'))).toHaveLength(2);
    expect(stack.resource('free')).toBeUndefined();
    expect(stack.resource('slow')).toBeUndefined();
    expect(stack.resource('p1')).toBeDefined();
    expect(stack.resource('p2')).toBeDefined();
  });
});
