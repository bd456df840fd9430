/**
 * Stack outputs of a failed run, from Pulumi's `deployment_executor.go` and `step_executor.go`
 * (`executeRegisterResourceOutputs` with `errored`): the previous outputs are kept, overlaid by whatever new
 * outputs the program managed to register.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, type ProgramSpec } from './conformance-harness.js';

const first: ProgramSpec = { resources: [{ name: 'a', props: { value: 1 } }], outputs: { aId: 'a', note: { value: 'first' } } };

describe('conformance: outputs on failure', () => {
  it('keeps the previous stack outputs when the program throws', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', first);
    const before = stack.outputs();

    const run = await stack.deploy('update', { ...first, throwAfterRegistering: 'the program broke' });

    expect(run.result.ok).toBe(false);
    expect(before.note).toBe('first');
    expect(stack.outputs()).toEqual(before);
  });

  it('keeps the previous stack outputs when a step fails', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', first);
    const before = stack.outputs();

    const run = await stack.deploy('update', {
      resources: [{ name: 'a', props: { value: 1 } }, { name: 'b', props: { fail: 'create' } }],
      outputs: { aId: 'a', bId: 'b' },
    });

    expect(run.result.ok).toBe(false);
    expect(stack.outputs()).toEqual(before);
  });
});
