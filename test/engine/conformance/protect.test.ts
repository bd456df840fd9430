/**
 * The `protect` resource option, from Pulumi's pkg/engine/lifecycletest/protect_test.go and the engine code it
 * exercises: `DeleteStep.Apply` refuses a protected delete (`deleteProtectedError`, and the step executor goes on
 * past it so every protected resource is reported), and `generateStepsFromDiff` refuses to replace a protected
 * resource, or a protected dependent of a delete-before-replace, unless `protect` is being removed in the same run.
 */
import { describe, expect, it } from 'vitest';
import { COMPONENT, conformanceStack, errorsOf, opsOf, type ProgramSpec } from './conformance-harness.js';

describe('conformance: protect', () => {
  // TestMultipleProtectedDeletes
  it('an update that drops two protected resources reports both as not deletable, in preview and update, and deletes nothing', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', {
      resources: [
        { name: 'resA', props: { value: 1 }, protect: true },
        { name: 'resB', props: { value: 1 }, protect: true },
      ],
    });
    stack.calls();

    const preview = await stack.deploy('preview', { resources: [] });
    const update = await stack.deploy('update', { resources: [] });

    for (const run of [preview, update]) {
      expect(run.result.ok).toBe(false);
      expect(errorsOf(run).some((e) => e.includes('resA" cannot be deleted'))).toBe(true);
      expect(errorsOf(run).some((e) => e.includes('resB" cannot be deleted'))).toBe(true);
    }
    expect(stack.calls().filter((c) => c.op === 'delete')).toEqual([]);
    expect(stack.resource('resA')?.protect).toBe(true);
    expect(stack.resource('resB')?.protect).toBe(true);
  });

  // generateSteps: protect is not an input, so changing it alone is a same step whose new state carries the flag
  it('changing only protect is a same step, stored without any provider call', async () => {
    const stack = conformanceStack();
    const spec = (protect: boolean): ProgramSpec => ({ resources: [{ name: 'resA', props: { value: 1 }, protect }] });
    await stack.deploy('update', spec(false));
    stack.calls();

    const protectedRun = await stack.deploy('update', spec(true));
    const afterProtect = stack.resource('resA')?.protect;
    const unprotectedRun = await stack.deploy('update', spec(false));

    expect(opsOf(protectedRun, 'resA')).toEqual(['same']);
    expect(afterProtect).toBe(true);
    expect(opsOf(unprotectedRun, 'resA')).toEqual(['same']);
    expect(stack.resource('resA')?.protect).toBeFalsy();
    expect(stack.calls().filter((c) => c.op !== 'read')).toEqual([]);
  });

  // TestProtectInheritance (the Node SDK passes the parent's protect down; the engine stores what it is given)
  it('children of a protected component are protected unless they say protect: false', async () => {
    const stack = conformanceStack();

    const run = await stack.deploy('update', {
      resources: [
        { name: 'parent', kind: 'component', protect: true },
        { name: 'resA', props: { value: 1 }, parent: 'parent' },
        { name: 'resB', props: { value: 1 }, parent: 'parent', protect: false },
      ],
    });

    expect(run.result.ok).toBe(true);
    const byName = (n: string) => stack.resources().find((r) => r.urn.endsWith(`::${n}`));
    expect(byName('parent')?.protect).toBe(true);
    expect(byName('resA')?.protect).toBe(true);
    expect(byName('resB')?.protect).toBeFalsy();
    expect(byName('resA')?.parent).toBe(stack.urn('parent', COMPONENT));
    expect(byName('resB')?.parent).toBe(stack.urn('parent', COMPONENT));
  });

  // TestIgnoreProtectReplace (without --ignore-protect), and the comment at generateStepsFromDiff's protect check:
  // unprotecting and replacing in one run is allowed
  it('a replacement of a protected resource is refused before any provider call; removing protect in the same run allows it', async () => {
    const stack = conformanceStack();
    const spec = (key: string, protect: boolean): ProgramSpec => ({ resources: [{ name: 'resA', props: { r_key: key }, protect }] });
    await stack.deploy('update', spec('foo', true));
    const oldId = stack.resource('resA')?.id;
    stack.calls();

    const preview = await stack.deploy('preview', spec('bar', true));
    const refused = await stack.deploy('update', spec('bar', true));
    const callsWhileProtected = stack.calls();
    const idWhileProtected = stack.resource('resA')?.id;
    const unprotected = await stack.deploy('update', spec('bar', false));

    // Pulumi's preview reports the error but still shows the replacement the diff asks for
    expect(preview.result.ok).toBe(false);
    expect(errorsOf(preview).some((e) => e.includes('as it is currently marked for protection'))).toBe(true);
    expect(opsOf(preview, 'resA')).toContain('replace');
    expect(refused.result.ok).toBe(false);
    expect(errorsOf(refused).some((e) => e.includes(`unable to replace resource "${stack.urn('resA')}"`))).toBe(true);
    expect(callsWhileProtected.filter((c) => c.op === 'create' || c.op === 'delete')).toEqual([]);
    expect(idWhileProtected).toBe(oldId);
    expect(unprotected.result.ok).toBe(true);
    expect(stack.resource('resA')?.id).not.toBe(oldId);
    expect(stack.resource('resA')?.inputs?.r_key).toBe('bar');
    expect(stack.resource('resA')?.protect).toBeFalsy();
  });

  // DeleteStep.Apply checks protect only for deletes that are not part of a replacement (`!s.replacing`)
  it('removing protect in the same run allows a delete-before-replace too', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { r_key: 'foo', dbr: true }, protect: true }] });
    const oldId = stack.resource('resA')?.id;
    stack.calls();

    const run = await stack.deploy('update', { resources: [{ name: 'resA', props: { r_key: 'bar', dbr: true }, protect: false }] });

    expect(run.result.errors).toEqual([]);
    expect(stack.calls().map((c) => `${c.op} ${c.id ?? ''}`.trim())).toEqual([`delete ${oldId}`, 'create']);
    expect(stack.resource('resA')?.inputs?.r_key).toBe('bar');
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
  });

  // TestIgnoreProtectDBRChain (without --ignore-protect) and TestDBRProtect (delete_before_replace_test.go): a protected
  // dependent stops the delete-before-replace chain
  it('a delete-before-replace whose dependent is protected is refused, and nothing is deleted', async () => {
    const stack = conformanceStack();
    const spec = (key: string): ProgramSpec => ({
      resources: [
        { name: 'resA', props: { r_key: key, dbr: true } },
        { name: 'resB', props: { value: 1 }, refs: { r_a: 'resA' }, protect: true },
      ],
    });
    await stack.deploy('update', spec('foo'));
    const ids = [stack.resource('resA')?.id, stack.resource('resB')?.id];
    stack.calls();

    const run = await stack.deploy('update', spec('bar'));

    expect(run.result.ok).toBe(false);
    const message = `unable to replace resource "${stack.urn('resB')}" as part of replacing "${stack.urn('resA')}" as it is currently marked for protection`;
    expect(errorsOf(run).some((e) => e.includes(message))).toBe(true);
    expect(stack.calls().filter((c) => c.op === 'create' || c.op === 'delete')).toEqual([]);
    expect([stack.resource('resA')?.id, stack.resource('resB')?.id]).toEqual(ids);
    expect(stack.resources().filter((r) => r.delete || r.pendingReplacement)).toEqual([]);
  });

  // TestProtectedDeleteChainsWithDuplicateDeletedResources
  it('a destroy blocked by a protected resource still deletes a pending delete of a resource it depends on', async () => {
    const stack = conformanceStack();
    const spec = (key: string, fail?: string): ProgramSpec => ({
      resources: [
        { name: 'resA', props: { r_key: key, ...(fail ? { fail } : {}) } },
        { name: 'resB', props: { value: 1 }, dependsOn: ['resA'], protect: true },
      ],
    });
    await stack.deploy('update', spec('one', 'delete'));
    const failedReplace = await stack.deploy('update', spec('two'));
    const pendingDelete = stack.resources().find((r) => r.urn === stack.urn('resA') && r.delete)!;
    // the provider of Pulumi's destroy step deletes without error
    delete pendingDelete.outputs!.fail;
    stack.calls();

    const destroy = await stack.deploy('destroy', spec('two'));

    expect(failedReplace.result.ok).toBe(false);
    expect(destroy.result.ok).toBe(false);
    expect(errorsOf(destroy).some((e) => e.includes(`resource "${stack.urn('resB')}" cannot be deleted`))).toBe(true);
    expect(stack.calls().filter((c) => c.op === 'delete').map((c) => c.id)).toEqual([pendingDelete.id]);
    const things = stack.resources().filter((r) => r.type === 'testprov:index:Thing');
    expect(things.map((r) => [r.urn, r.delete ?? false])).toEqual([
      [stack.urn('resA'), false],
      [stack.urn('resB'), false],
    ]);
  });
});
