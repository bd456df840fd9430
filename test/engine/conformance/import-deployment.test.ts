/**
 * The import deployment behind `stackyard import`, from Pulumi's pkg/engine/lifecycletest/import_test.go
 * (`TestImportPlan`, `TestImportPlanExistingImport`, `TestImportPlanEmptyState`, `TestImportIntoParent`,
 * `TestImportPlanSpecificProperties`) and pkg/resource/deploy/import.go: no program runs; the state's resources are
 * kept as same steps, the stack is created when missing, and each resource is read by its id and recorded.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlannedImport } from '../../../cli/engine/steps/planned-imports.js';
import { changeInWorld } from '../../support/testprov-world.js';
import { conformanceStack, errorsOf, opsOf, THING, type ConformanceStack } from './conformance-harness.js';

const IMPORTABLE = join(import.meta.dirname, '../../fixtures/providers/testprov-import');
const plugins = { projectPlugins: [{ name: 'testprov', path: IMPORTABLE }] };

/** Runs an import (or its preview) of `imports` on the stack. */
function importRun(stack: ConformanceStack, imports: PlannedImport[], dryRun = false) {
  return stack.deploy('import', { resources: [] }, { ...plugins, imports, dryRun });
}

const thing = (name: string, id: string, extra: Partial<PlannedImport> = {}): PlannedImport => ({ type: THING, name, id, protect: false, ...extra });

describe('conformance: the import deployment (Pulumi TestImportPlan and friends)', () => {
  it('keeps the state as same steps and adopts the resource read by its id (TestImportPlan)', async () => {
    // Prepare
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { value: 1 } }] }, plugins);
    changeInWorld(stack.world, 'actual-id', { foo: 'bar', frob: 1, createdBy: 'testprov', serial: 1 });
    stack.calls();

    // Act
    const run = await importRun(stack, [thing('resB', 'actual-id', { protect: true })]);

    // Assess
    expect(run.result.errors).toEqual([]);
    expect(opsOf(run, 'resA')).toEqual(['same']);
    expect(opsOf(run, 'resB')).toEqual(['import']);
    expect(run.result.summary).toEqual({ same: 2, import: 1 });
    const resB = stack.resource('resB')!;
    expect(resB).toMatchObject({ id: 'actual-id', inputs: { foo: 'bar', frob: 1 }, outputs: { foo: 'bar', frob: 1, createdBy: 'testprov', serial: 1 }, protect: true });
    expect(resB.importID).toBeUndefined();
    expect(resB.created).toBeDefined();
    expect(resB.modified).toBeDefined();
    expect(stack.resources().map((r) => r.urn.slice(r.urn.lastIndexOf('::') + 2))).toEqual(['conformance-dev', 'default', 'resA', 'resB']);
    expect(stack.calls().map((c) => c.op)).toEqual(['read']);
  });

  it('refuses another id under a URN the state holds, and does nothing for the same id (TestImportPlanExistingImport)', async () => {
    // Prepare
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { value: 1 } }] }, plugins);
    const id = stack.resource('resA')!.id!;
    const before = JSON.stringify(stack.resources());

    // Act
    const other = await importRun(stack, [thing('resA', 'imported-id-2')]);
    const same = await importRun(stack, [thing('resA', id)]);

    // Assess
    expect(other.result.ok).toBe(false);
    expect(errorsOf(other)).toContain(`resource '${stack.urn('resA')}' already exists`);
    expect(same.result.errors).toEqual([]);
    expect(same.steps.filter((s) => s.phase === 'done').map((s) => s.op)).toEqual(['same', 'same', 'same']);
    expect(JSON.stringify(stack.resources())).toBe(before);
  });

  it('creates the stack and the default provider in an empty state (TestImportPlanEmptyState)', async () => {
    // Prepare
    const stack = conformanceStack();
    changeInWorld(stack.world, 'id-1', { value: 5, createdBy: 'testprov', serial: 1 });

    // Act
    const preview = await importRun(stack, [thing('resA', 'id-1')], true);
    const run = await importRun(stack, [thing('resA', 'id-1')]);

    // Assess
    expect(preview.result.ok).toBe(true);
    expect(preview.saves).toEqual([]);
    expect(preview.result.summary).toEqual({ create: 1, import: 1 });
    expect(run.result.summary).toEqual({ create: 1, import: 1 });
    expect(stack.resources().map((r) => r.type)).toEqual(['pulumi:pulumi:Stack', 'pulumi:providers:testprov', THING]);
    expect(stack.resource('resA')!.parent).toBe(stack.urn('conformance-dev', 'pulumi:pulumi:Stack'));
  });

  it('imports a component and a child under it, the child after its parent (TestImportIntoParent, TestImportComponent)', async () => {
    // Prepare
    const stack = conformanceStack();
    changeInWorld(stack.world, 'child-id', { value: 1, createdBy: 'testprov', serial: 1 });
    const parent = stack.urn('comp', 'my:index:Group');

    // Act
    const run = await importRun(stack, [thing('child', 'child-id', { parent }), { type: 'my:index:Group', name: 'comp', component: true, protect: false }]);
    const orphan = await importRun(stack, [thing('lost', 'child-id', { parent: stack.urn('nowhere', 'my:index:Group') })]);

    // Assess
    expect(run.result.errors).toEqual([]);
    const done = run.steps.filter((s) => s.phase === 'done' && s.op === 'import').map((s) => s.urn);
    expect(done).toEqual([parent, `urn:pulumi:dev::conformance::my:index:Group$${THING}::child`]);
    expect(stack.resource('comp')).toMatchObject({ custom: false, inputs: {}, outputs: {} });
    expect(stack.resource('child')).toMatchObject({ parent, id: 'child-id' });
    expect(errorsOf(orphan)).toContain(`unknown parent '${stack.urn('nowhere', 'my:index:Group')}' for resource 'urn:pulumi:dev::conformance::my:index:Group$${THING}::lost'`);
  });

  it('records only the properties asked for; failed checks are warnings (TestImportPlanSpecificProperties)', async () => {
    // Prepare: the test provider's Check fails on `invalid`
    const stack = conformanceStack();
    changeInWorld(stack.world, 'id-1', { value: 1, label: 'x', invalid: true, createdBy: 'testprov', serial: 1 });
    changeInWorld(stack.world, 'id-2', { value: 2, invalid: true, createdBy: 'testprov', serial: 1 });

    // Act
    const run = await importRun(stack, [thing('some', 'id-1', { properties: ['value', 'invalid'] }), thing('all', 'id-2')]);

    // Assess
    expect(run.result.errors).toEqual([]);
    expect(stack.resource('some')!.inputs).toEqual({ value: 1, invalid: true });
    expect(stack.resource('all')!.inputs).toEqual({ value: 2, invalid: true });
    // as Pulumi's ImportStep, the step's old state holds every input read, so the display shows what was left out
    const step = run.steps.find((e) => e.op === 'import' && e.phase === 'done' && e.urn.endsWith('::some'))!;
    expect([step.old?.inputs, step.new?.inputs]).toEqual([{ value: 1, label: 'x', invalid: true }, { value: 1, invalid: true }]);
    const warnings = run.diags.filter((d) => d.severity === 'warning').map((d) => d.message);
    const proceed = 'The import will still proceed, but you will need to edit the generated code after copying it into your program.';
    expect(warnings).toContain(`One or more imported inputs failed to validate. Try specifying a different set of properties to import with in the future. ${proceed}`);
    expect(warnings).toContain(`One or more imported inputs failed to validate. This is almost certainly a bug in the \`testprov\` provider. ${proceed}`);
    expect(warnings).toContain(`${THING} resource 'some': property invalid value true has a problem: invalid was set`);
  });

  it('creates a provider the imports declare, with its inputs, and fills inputs Read does not return from the supplied ones', async () => {
    // Prepare
    const stack = conformanceStack();
    changeInWorld(stack.world, 'id-1', { value: 1, createdBy: 'testprov', serial: 1 });
    const prov = stack.urn('prov', 'pulumi:providers:testprov');

    // Act
    const run = await importRun(stack, [
      { type: 'pulumi:providers:testprov', name: 'prov', inputs: { region: 'eu' }, protect: false },
      thing('a', 'id-1', { provider: prov, inputs: { value: 99, password: 'kept' } }),
    ]);

    // Assess
    expect(run.result.errors).toEqual([]);
    expect(opsOf(run, 'prov')).toEqual(['create']);
    expect(stack.resource('prov')).toMatchObject({ inputs: { region: 'eu' } });
    const a = stack.resource('a')!;
    expect(a.provider).toBe(`${prov}::${stack.resource('prov')!.id}`);
    expect(a.inputs).toEqual({ value: 1, password: 'kept' });
  });

  it('fails on a duplicate, and on an id that names nothing, recording nothing', async () => {
    // Prepare
    const stack = conformanceStack();
    changeInWorld(stack.world, 'id-1', { value: 1, createdBy: 'testprov', serial: 1 });

    // Act
    const duplicate = await importRun(stack, [thing('a', 'id-1'), thing('a', 'id-1')]);
    const missing = await importRun(stack, [thing('a', 'id-1'), thing('b', 'no-such-id')], true);

    // Assess
    expect(errorsOf(duplicate)).toContain(`duplicate import 'a' of type '${THING}'`);
    expect(stack.resource('a')).toBeUndefined();
    expect(missing.result.ok).toBe(false);
    expect(errorsOf(missing)).toContain("resource 'no-such-id' does not exist");
    expect(missing.saves).toEqual([]);
  });
});
