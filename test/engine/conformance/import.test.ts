/**
 * The `import` resource option on a resource already in the state under the id it names (a state migrated from
 * Pulumi, where the import happened), from Pulumi's pkg/engine/lifecycletest/import_test.go (`TestImportOption`:
 * "previously-imported resources that still specify an ID may not be replaced") and `generateStepsFromDiff`: an
 * update refuses the replacement before any provider call, a preview warns and shows it; and on a resource not in
 * the state yet (`ImportStep.Apply`): it is read by that id and adopted, then updated when the program's inputs
 * differ, never created.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conformanceStack, errorsOf, opsOf, stateResources, type ProgramSpec } from './conformance-harness.js';

const IMPORTABLE_PROVIDER = join(import.meta.dirname, '../../fixtures/providers/testprov-import');
const plugins = { projectPlugins: [{ name: 'testprov', path: IMPORTABLE_PROVIDER }] };

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

describe('conformance: the import option adopting a resource (Pulumi TestImportOption, ImportStep.Apply)', () => {
  it('reads and adopts it without a create: nothing more when the inputs match, an update when they differ', async () => {
    const stack = conformanceStack();
    // two resources the stack lets go of without deleting them, to be adopted again under other names
    await stack.deploy('update', { resources: ['a', 'b'].map((name) => ({ name, props: { value: 7 }, retainOnDelete: true })) }, plugins);
    const [idA, idB] = [stack.resource('a')!.id!, stack.resource('b')!.id!];
    const adopt: ProgramSpec = {
      resources: [
        { name: 'matching', props: { value: 7 }, import: idA },
        { name: 'differing', props: { value: 8 }, import: idB },
      ],
    };
    stack.calls();

    const preview = await stack.deploy('preview', adopt, plugins);
    const run = await stack.deploy('update', adopt, plugins);
    const again = await stack.deploy('update', adopt, plugins);

    expect(preview.result.errors).toEqual([]);
    expect(opsOf(preview, 'matching')).toEqual(['import']);
    expect(opsOf(preview, 'differing')).toEqual(['import', 'update']);
    expect(run.result.errors).toEqual([]);
    expect(opsOf(run, 'matching')).toEqual(['import']);
    expect(opsOf(run, 'differing')).toEqual(['import', 'update']);
    expect(again.result.errors).toEqual([]);
    expect([opsOf(again, 'matching'), opsOf(again, 'differing')]).toEqual([['same'], ['same']]);
    const calls = stack.calls();
    expect(calls.filter((c) => c.op === 'create' || c.op === 'delete')).toEqual([]);
    expect(calls.filter((c) => c.op === 'update').map((c) => c.id)).toEqual([idB]);
    expect([stack.resource('matching')?.id, stack.resource('matching')?.importID]).toEqual([idA, idA]);
    expect([stack.resource('differing')?.id, stack.resource('differing')?.importID]).toEqual([idB, idB]);
    expect(stack.resource('differing')?.inputs?.value).toBe(8);
    expect(stack.resources().filter((r) => r.urn === stack.urn('differing') || r.urn === stack.urn('matching'))).toHaveLength(2);
  });

  it('fails on an id that names nothing, and records nothing', async () => {
    const stack = conformanceStack();

    const run = await stack.deploy('update', { resources: [{ name: 'ghost', props: { value: 1 }, import: 'no-such-id' }] }, plugins);

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).some((e) => e.includes("resource 'no-such-id' does not exist"))).toBe(true);
    expect(stack.calls().filter((c) => c.op === 'create')).toEqual([]);
    expect(stack.resource('ghost')).toBeUndefined();
  });
});
