/**
 * Reads (`Resource.get` / ReadResource), from Pulumi's `step.go` (`ReadStep.Apply` sends the inputs as both the
 * inputs and the state to read with): a dynamic provider's read gets its serialized code from them.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack } from './conformance-harness.js';

describe('conformance: reads', () => {
  it('reads a dynamic-provider resource by id, passing the inputs as the state', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'm', kind: 'dynamic', props: { label: 'x' } }] });
    const id = stack.resource('m')?.id;

    const run = await stack.deploy('update', {
      resources: [
        { name: 'm', kind: 'dynamic', props: { label: 'x' } },
        { name: 'seen', kind: 'get-dynamic', id: id!, props: { label: 'x' } },
      ],
      outputs: { readBack: 'seen.readBack' },
    });

    expect(run.result.errors).toEqual([]);
    expect(run.result.ok).toBe(true);
    const seen = stack.resource('seen');
    expect(seen?.external).toBe(true);
    expect(seen?.id).toBe(id);
    expect(seen?.outputs?.readBack).toBe(true);
    expect(stack.outputs().readBack).toBe(true);
  });

  it('reads a provider resource by id and records it as external', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { value: 7 } }] });
    const id = stack.resource('a')?.id;

    const run = await stack.deploy('update', {
      resources: [
        { name: 'a', props: { value: 7 } },
        { name: 'copy', kind: 'get', id: id!, expose: ['value'] },
      ],
      outputs: { copied: 'copy.value' },
    });

    expect(run.result.ok).toBe(true);
    expect(stack.resource('copy')?.external).toBe(true);
    expect(stack.outputs().copied).toBe(7);
  });

  it('refuses the `import` resource option with a provider that cannot import, instead of creating a second resource', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'a', props: { value: 7 } }] });
    const id = stack.resource('a')?.id;
    stack.calls();

    const run = await stack.deploy('update', {
      resources: [
        { name: 'a', props: { value: 7 } },
        { name: 'adopted', props: { value: 7 }, import: id! },
      ],
    });

    expect(run.result.ok).toBe(false);
    expect(run.result.errors.join('\n')).toContain("provider does not support importing resources; please try updating the 'testprov' plugin");
    expect(stack.calls().filter((c) => c.op === 'create')).toEqual([]);
    expect(stack.resource('adopted')).toBeUndefined();
  });
});
