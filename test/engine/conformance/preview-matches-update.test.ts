/**
 * A preview shows exactly the steps its update takes. From Pulumi's `step_generator.go` and `step.go`: a
 * create-before-delete replacement's `CreateStep.Apply` marks the old state `Delete` in a preview too, so
 * `GenerateDeletes` gives it a delete-replaced step (never a plain delete), and the change summary counts the replace
 * alone (`pkg/engine` leaves create-replacement and delete-replaced out of `resourceChanges`).
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../engine-harness.js';
import { conformanceStack, errorsOf, type ProgramSpec } from './conformance-harness.js';
import type { TargetOptions } from '../../../cli/engine/steps/targeting.js';

/** Every finished step of a run as `op name`, in order. */
function allSteps(run: RunRecord): string[] {
  return run.steps.filter((s) => s.phase === 'done').map((s) => `${s.op} ${s.urn.slice(s.urn.lastIndexOf('::') + 2)}`);
}

const pair = (b: Record<string, unknown> = {}): ProgramSpec => ({
  resources: [
    { name: 'a', props: { value: 1 } },
    { name: 'b', props: { value: 1 }, refs: { upstream: 'a' }, ...b },
  ],
});

type Scenario = [string, ProgramSpec, ProgramSpec, (urn: (name: string) => string) => TargetOptions | undefined, string[]];

const scenarios: Scenario[] = [
  ['--replace of a resource without a diff', pair(), pair(), (urn) => ({ replaces: [urn('a')] }), ['create-replacement a', 'replace a', 'update b', 'delete-replaced a']],
  ['--replace of a retainOnDelete resource', pair({ retainOnDelete: true }), pair({ retainOnDelete: true }), (urn) => ({ replaces: [urn('b')] }), ['same a', 'create-replacement b', 'replace b', 'delete-replaced b']],
  ['a diff replacing a retainOnDelete resource', pair({ retainOnDelete: true }), pair({ retainOnDelete: true, props: { value: 1, r_key: 'new' } }), () => undefined, ['same a', 'create-replacement b', 'replace b', 'delete-replaced b']],
  ['a delete-before-replace', pair({ deleteBeforeReplace: true }), pair({ deleteBeforeReplace: true, props: { value: 1, r_key: 'new' } }), () => undefined, ['same a', 'delete-replaced b', 'create-replacement b', 'replace b']],
];

describe('conformance: a preview shows the steps of its update', () => {
  it.each(scenarios)('%s', async (_, before, after, targeting, expected) => {
    const stack = conformanceStack();
    await stack.deploy('update', before);
    const options = { targeting: targeting((name) => stack.urn(name)) };

    const preview = await stack.deploy('preview', after, options);
    const update = await stack.deploy('update', after, options);

    expect(errorsOf(update)).toEqual([]);
    expect(allSteps(preview)).toEqual(allSteps(update));
    expect(preview.result.summary).toEqual(update.result.summary);
    expect(allSteps(update).filter((s) => !s.endsWith('default') && !s.endsWith('conformance-dev'))).toEqual(expected);
  });
});
