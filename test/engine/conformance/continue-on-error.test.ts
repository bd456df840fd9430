/**
 * `--continue-on-error`, from Pulumi's `step_executor.go` (`cancelDueToError`) and `deployment_executor.go`
 * (steps depending on an errored step are skipped): a failed step no longer stops the run; what depends on it is
 * skipped, everything else goes ahead, and the run still fails.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, opsOf, type ProgramSpec } from './conformance-harness.js';

const spec: ProgramSpec = {
  resources: [
    { name: 'bad', props: { fail: 'create' } },
    { name: 'child', props: { value: 1 }, refs: { upstream: 'bad' } },
    { name: 'slow', props: { value: 1, delay: 1500 } },
    // registered only once `slow` exists, well after `bad` failed
    { name: 'fine', props: { value: 1 }, dependsOn: ['slow'] },
  ],
};

describe('conformance: --continue-on-error', () => {
  it('creates what does not depend on the failed step, skips what does, and fails the run', async () => {
    const stack = conformanceStack();

    const run = await stack.deploy('update', spec, { continueOnError: true });

    expect(run.result.ok).toBe(false);
    expect(stack.resource('fine')?.id).toMatch(/^fine-/);
    expect(stack.resource('bad')).toBeUndefined();
    expect(stack.resource('child')).toBeUndefined();
    expect(opsOf(run, 'child')).toEqual([]);
  });

  it('destroy goes on deleting what does not depend on a resource whose delete failed', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'stuck', props: { fail: 'delete' } },
        { name: 'on-stuck', props: { value: 1 }, refs: { upstream: 'stuck' } },
        { name: 'free', props: { value: 1 } },
        // deleted first and slowly, so the delete of `free` starts well after the delete of `stuck` failed
        { name: 'slow', props: { value: 1, delay: 1500 }, refs: { upstream: 'free' } },
      ],
    });

    const run = await stack.deploy('destroy', spec, { continueOnError: true });

    expect(run.result.ok).toBe(false);
    expect(stack.resource('free')).toBeUndefined();
    expect(stack.resource('slow')).toBeUndefined();
    expect(stack.resource('on-stuck')).toBeUndefined();
    expect(stack.resource('stuck')).toBeDefined();
  });
});
