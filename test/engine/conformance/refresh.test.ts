/**
 * Refresh with targets, from Pulumi's `refresh.go` and `step_generator.go`: only targeted resources are read back;
 * the rest keep their recorded state.
 */
import { describe, expect, it } from 'vitest';
import { deleteFromWorld, worldIds } from '../../support/testprov-world.js';
import { conformanceStack, opsOf, type ProgramSpec } from './conformance-harness.js';

const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 1 } }, { name: 'b', props: { value: 1 } }] };

describe('conformance: refresh', () => {
  it('--target refreshes only the target', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', spec);
    for (const id of worldIds(stack.world)) deleteFromWorld(stack.world, id);

    const run = await stack.deploy('refresh', spec, { targeting: { targets: [stack.urn('a')] } });

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['delete']);
    expect(opsOf(run, 'b')).toEqual([]);
    expect(stack.resource('a')).toBeUndefined();
    expect(stack.resource('b')).toBeDefined();
  });

  it('--exclude leaves the excluded resource unread', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', spec);
    for (const id of worldIds(stack.world)) deleteFromWorld(stack.world, id);

    const run = await stack.deploy('refresh', spec, { targeting: { excludes: [stack.urn('a')] } });

    expect(run.result.ok).toBe(true);
    expect(stack.resource('a')).toBeDefined();
    expect(stack.resource('b')).toBeUndefined();
  });

  it('--target naming nothing fails the refresh', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', spec);

    const run = await stack.deploy('refresh', spec, { targeting: { targets: [stack.urn('nope')] } });

    expect(run.result.ok).toBe(false);
    expect(stack.resource('a')).toBeDefined();
  });
});
