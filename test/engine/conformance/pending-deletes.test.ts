/**
 * Resources left marked `delete: true` by an earlier run (a create-before-delete replacement whose delete failed)
 * are deleted by the next update that targets them, as Pulumi's `GenerateDeletes` does.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../../../cli/engine/state/deployment.js';
import { conformanceStack, opsOf, type ProgramSpec } from './conformance-harness.js';

const spec: ProgramSpec = { resources: [{ name: 'a', props: { value: 1 } }, { name: 'b', props: { value: 1 } }] };

/** Puts a pending-delete copy of `a` (id `a-old`) in front of `a`, as a failed delete of a replaced `a` leaves it. */
function addPendingDelete(resources: ResourceState[], urn: string): void {
  const i = resources.findIndex((r) => r.urn === urn);
  resources.splice(i, 0, { ...resources[i]!, id: 'a-old', delete: true });
}

describe('conformance: pending deletes', () => {
  it('the next update deletes a resource pending deletion', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', spec);
    addPendingDelete((stack.state!.deployment as { resources: ResourceState[] }).resources, stack.urn('a'));
    stack.calls();

    const run = await stack.deploy('update', spec);

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a')).toEqual(['same', 'delete-replaced']);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id)).toEqual(['a-old']);
    expect(stack.resources().filter((r) => r.delete)).toEqual([]);
  });

  it('an update targeting something else leaves the pending delete alone', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', spec);
    addPendingDelete((stack.state!.deployment as { resources: ResourceState[] }).resources, stack.urn('a'));

    const run = await stack.deploy('update', spec, { targeting: { targets: [stack.urn('b')] } });

    expect(run.result.ok).toBe(true);
    expect(opsOf(run, 'a').filter((op) => op !== 'same')).toEqual([]);
    expect(stack.resources().filter((r) => r.delete).map((r) => r.id)).toEqual(['a-old']);
  });
});
