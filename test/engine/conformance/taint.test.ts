/**
 * Taint, from Pulumi's pkg/engine/lifecycletest/taint_test.go: a resource tainted in the state is replaced on the
 * next update even without a diff, its old resource deleted, the taint cleared; untainted ones are left alone, and a
 * taint on a state already marked for deletion changes nothing about it.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../../../cli/engine/state/deployment.js';
import { conformanceStack, stateResources, type ProgramSpec } from './conformance-harness.js';

const three: ProgramSpec = { resources: ['resA', 'resB', 'resC'].map((name) => ({ name, props: { value: 1 } })) };

describe('conformance: taint', () => {
  // TestTaintMultipleResources, TestTaintNoChanges
  it('replaces every tainted resource (and only those) without a diff, deletes the old ones and clears the taint', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', three);
    const before = Object.fromEntries(['resA', 'resB', 'resC'].map((n) => [n, stack.resource(n)?.id]));
    for (const r of stateResources(stack.state)) if (r.urn === stack.urn('resA') || r.urn === stack.urn('resC')) r.taint = true;
    stack.calls();

    const run = await stack.deploy('update', three);

    expect(run.result.errors).toEqual([]);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id).sort()).toEqual([before.resA, before.resC].sort());
    expect(stack.resource('resA')?.id).not.toBe(before.resA);
    expect(stack.resource('resB')?.id).toBe(before.resB);
    expect(stack.resource('resC')?.id).not.toBe(before.resC);
    expect(stack.resources().filter((r) => r.taint || r.delete)).toEqual([]);
  });

  // TestTaintWithPendingDelete
  it('a tainted resource next to a tainted pending delete of the same URN ends as one replaced, untainted resource', async () => {
    const stack = conformanceStack();
    const spec: ProgramSpec = { resources: [{ name: 'resA', props: { value: 1 } }] };
    await stack.deploy('update', spec);
    const resources = stateResources(stack.state);
    const live = resources.find((r) => r.urn === stack.urn('resA'))!;
    live.taint = true;
    const pendingDelete: ResourceState = { ...live, id: 'resA-old', delete: true, taint: true };
    resources.splice(resources.indexOf(live), 0, pendingDelete);
    stack.calls();

    const run = await stack.deploy('update', spec);

    expect(run.result.errors).toEqual([]);
    const left = stack.resources().filter((r) => r.urn === stack.urn('resA'));
    expect(left).toHaveLength(1);
    expect(left[0]?.id).not.toBe(live.id);
    expect(left[0]?.taint).toBeFalsy();
    expect(left[0]?.delete).toBeFalsy();
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id).sort()).toEqual([live.id, 'resA-old'].sort());
  });
});
