/**
 * The `import` resource option on a resource already in the state under the id it names (a state migrated from
 * Pulumi, where the import happened), from Pulumi's pkg/engine/lifecycletest/import_test.go (`TestImportOption`:
 * "previously-imported resources that still specify an ID may not be replaced") and `generateStepsFromDiff`: an
 * update refuses the replacement before any provider call, a preview warns and shows it. Adopting a resource that
 * is not in the state yet is refused (reads.test.ts) until the import step is built.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, opsOf, stateResources, type ProgramSpec } from './conformance-harness.js';

describe('conformance: the import option on a previously imported resource', () => {
  it('is a same step while nothing changes, and a replacement is refused (update) or warned about (preview)', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { r_key: 'one' } }] });
    const id = stack.resource('resA')!.id!;
    for (const r of stateResources(stack.state)) if (r.urn === stack.urn('resA')) r.importID = id;
    const spec = (key: string): ProgramSpec => ({ resources: [{ name: 'resA', props: { r_key: key }, import: id }] });
    stack.calls();

    const unchanged = await stack.deploy('update', spec('one'));
    const preview = await stack.deploy('preview', spec('two'));
    const refused = await stack.deploy('update', spec('two'));

    const message = 'previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\nr_key: "one" => "two"';
    expect(unchanged.result.errors).toEqual([]);
    expect(opsOf(unchanged, 'resA')).toEqual(['same']);
    expect(preview.result.ok).toBe(true);
    expect(preview.diags.filter((d) => d.severity === 'warning').map((d) => d.message)).toContain(message);
    expect(opsOf(preview, 'resA')).toContain('replace');
    expect(refused.result.ok).toBe(false);
    expect(refused.result.errors.join('\n')).toContain(message);
    expect(stack.calls().filter((c) => c.op === 'create' || c.op === 'delete')).toEqual([]);
    expect(stack.resource('resA')?.id).toBe(id);
    expect(stack.resource('resA')?.importID).toBe(id);
  });

  // generateSteps: without an import id in the state, the resource's id is compared with the option's
  it('names a resource created by this stack by its id: a same step, and the import id is recorded as Pulumi does', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { value: 1 } }] });
    const id = stack.resource('resA')!.id!;
    stack.calls();

    const run = await stack.deploy('update', { resources: [{ name: 'resA', props: { value: 1 }, import: id }] });

    expect(run.result.errors).toEqual([]);
    expect(opsOf(run, 'resA')).toEqual(['same']);
    expect(stack.calls().filter((c) => c.op !== 'read')).toEqual([]);
    expect(stack.resource('resA')?.importID).toBe(id);
  });
});
