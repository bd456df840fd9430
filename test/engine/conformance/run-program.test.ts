/**
 * `refresh --run-program` and `destroy --run-program`, from Pulumi's lifecycle tests (pkg/engine/lifecycletest:
 * TestRefreshWithProgram, TestRefreshWithProgramUpdateExplicitProvider, TestDestroyWithProgram) and the step
 * generator's refresh and destroy modes (step_generator.go): the program runs, providers take the configuration it
 * gives them, custom resources are read back (refresh) or kept until deleted (destroy), and nothing is created.
 */
import { describe, expect, it } from 'vitest';
import { changeInWorld, deleteFromWorld, worldIds, worldResource } from '../../support/testprov-world.js';
import { conformanceStack, opsOf, type ProgramSpec } from './conformance-harness.js';

const PROVIDER_TYPE = 'pulumi:providers:testprov';

describe('conformance: refresh --run-program', () => {
  it('reads the registered resources back, gives the program what was read, creates nothing, and still reads back the unregistered ones', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { value: 1 } }, { name: 'b', props: { value: 1 } }], outputs: { seen: 'a.value' } });
    const aId = stack.resource('a')!.id!;
    changeInWorld(stack.world, aId, { ...worldResource(stack.world, aId), value: 2 });
    stack.calls();
    // the program changed: a's inputs differ, b is gone from it, c is new
    const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 5 } }, { name: 'c', props: { value: 1 } }], outputs: { seen: 'a.value' } };

    const run = await stack.deploy('refresh', spec, { runProgram: true });

    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['update']);
    expect(opsOf(run, 'b')).toEqual(['same']);
    expect(opsOf(run, 'c')).toEqual([]);
    expect(stack.calls().map((c) => c.op).sort()).toEqual(['read', 'read']);
    // the state takes what the provider read, never the program's inputs
    expect(stack.resource('a')).toMatchObject({ inputs: { value: 1 }, outputs: { value: 2 } });
    expect(stack.resource('b')).toBeDefined();
    expect(stack.resource('c')).toBeUndefined();
    expect(worldIds(stack.world)).toHaveLength(2);
    // the program ran on what was read: the stack output follows it
    expect(stack.outputs()).toEqual({ seen: 2 });
  });

  it('a resource gone from the cloud leaves the state, and the program goes on as if it were new (not created)', async () => {
    const stack = conformanceStack();
    const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 1 } }] };
    await stack.deploy('update', spec);
    deleteFromWorld(stack.world, stack.resource('a')!.id!);

    const run = await stack.deploy('refresh', { ...spec, outputs: { ran: { value: 'yes' } } }, { runProgram: true });

    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['delete']);
    expect(stack.resource('a')).toBeUndefined();
    expect(worldIds(stack.world)).toEqual([]);
    expect(stack.outputs()).toEqual({ ran: 'yes' });
  });

  it('an explicit provider takes the configuration the program gives it now', async () => {
    const stack = conformanceStack();
    const withRegion = (region: string): ProgramSpec => ({ resources: [{ name: 'p', kind: 'provider', props: { region } }, { name: 'a', provider: 'p', props: { value: 1 } }] });
    await stack.deploy('update', withRegion('eu'));

    const plain = await stack.deploy('refresh', withRegion('us'));
    const providerAfterPlain = stack.resources().find((r) => r.type === PROVIDER_TYPE);
    const run = await stack.deploy('refresh', withRegion('us'), { runProgram: true });

    expect(plain.result.ok).toBe(true);
    expect(providerAfterPlain?.inputs).toMatchObject({ region: 'eu' });
    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(stack.resources().find((r) => r.type === PROVIDER_TYPE)?.inputs).toMatchObject({ region: 'us' });
    expect(opsOf(run, 'a')).toEqual(['same']);
  });
});

describe('conformance: destroy --run-program', () => {
  it('deletes everything with the providers the program configures, keeping the recorded inputs, and creates nothing', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { value: 1 } }, { name: 'b', props: { value: 1 } }, { name: 'k', kind: 'component' }] });
    stack.calls();
    const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 5 } }, { name: 'c', props: { value: 1 } }, { name: 'd', props: { value: 1 }, dependsOn: ['c'] }, { name: 'k', kind: 'component' }] };

    const run = await stack.deploy('destroy', spec, { runProgram: true });

    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(stack.calls().map((c) => c.op).sort()).toEqual(['delete', 'delete']);
    expect(opsOf(run, 'a')).toEqual(['same', 'delete']);
    expect(opsOf(run, 'b')).toEqual(['delete']);
    expect(opsOf(run, 'c')).toEqual([]);
    expect(opsOf(run, 'd')).toEqual([]);
    expect(opsOf(run, 'k')).toEqual(['same', 'delete']);
    expect(stack.resources()).toEqual([]);
    expect(worldIds(stack.world)).toEqual([]);
  });

  it('a preview shows the deletes and changes nothing', async () => {
    const stack = conformanceStack();
    const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 1 } }] };
    await stack.deploy('update', spec);
    const before = stack.resources().length;

    const run = await stack.deploy('destroy', spec, { runProgram: true, dryRun: true });

    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['same', 'delete']);
    expect(stack.resources()).toHaveLength(before);
    expect(worldIds(stack.world)).toHaveLength(1);
  });
});
