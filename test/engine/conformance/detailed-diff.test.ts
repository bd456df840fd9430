/**
 * A provider that reports replacements only in its detailed diff, from Pulumi's `DiffResult.Replace`
 * (sdk/go/common/resource/plugin/provider.go: a replace kind in the detailed diff replaces like a replace key) and
 * `decodeDetailedDiff` (pkg/resource/plugin/provider_plugin.go).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conformanceStack, opsOf, type ProgramSpec } from './conformance-harness.js';

const DETAILED_DIFF_PROVIDER = join(import.meta.dirname, 'fixtures/detailed-diff-provider');

describe('conformance: replacements named only in the detailed diff', () => {
  it('replaces on an UPDATE_REPLACE entry, and updates on an UPDATE entry', async () => {
    const stack = conformanceStack();
    const plugins = { projectPlugins: [{ name: 'testprov', path: DETAILED_DIFF_PROVIDER }] };
    const spec = (key: string, value: number): ProgramSpec => ({ resources: [{ name: 'resA', props: { r_key: key, value } }] });
    await stack.deploy('update', spec('one', 1), plugins);
    const firstId = stack.resource('resA')?.id;

    const updated = await stack.deploy('update', spec('one', 2), plugins);
    const updatedId = stack.resource('resA')?.id;
    const replaced = await stack.deploy('update', spec('two', 2), plugins);

    expect(updated.result.errors).toEqual([]);
    expect(opsOf(updated, 'resA')).toEqual(['update']);
    expect(updatedId).toBe(firstId);
    expect(replaced.result.errors).toEqual([]);
    expect(opsOf(replaced, 'resA')).toEqual(['create-replacement', 'replace', 'delete-replaced']);
    expect(stack.resource('resA')?.id).not.toBe(firstId);
  });

  it("carries the provider's detailed diff into the step's events (Pulumi's StepEventMetadata.DetailedDiff)", async () => {
    const stack = conformanceStack();
    const plugins = { projectPlugins: [{ name: 'testprov', path: DETAILED_DIFF_PROVIDER }] };
    const spec = (key: string, value: number): ProgramSpec => ({ resources: [{ name: 'resA', props: { r_key: key, value } }] });
    await stack.deploy('update', spec('one', 1), plugins);

    const updated = await stack.deploy('update', spec('one', 2), plugins);
    const replaced = await stack.deploy('update', spec('two', 2), plugins);

    const started = (run: typeof updated, op: string) => run.steps.find((s) => s.phase === 'start' && s.op === op && s.urn.endsWith('::resA'));
    expect(started(updated, 'update')?.detailedDiff).toEqual({ value: { kind: 'update', inputDiff: true } });
    expect(started(replaced, 'replace')?.detailedDiff).toEqual({ r_key: { kind: 'update-replace', inputDiff: true } });
  });
});
