/**
 * Resource hooks (`RegisterResourceHook` and the `hooks` resource option), from Pulumi's
 * pkg/engine/lifecycletest/resource_hooks_test.go and the steps that run them (`CreateStep`, `UpdateStep` and
 * `DeleteStep` `Apply` in step.go, `Deployment.RunHooks`): before hooks run ahead of the provider call and fail the
 * step, after hooks run once the state is recorded and fail the run, hooks on deletes come from the state, and a
 * preview runs only the hooks registered with `onDryRun`.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf, stepList } from './conformance-harness.js';
import { callLines, HooksStack, type HookSpec, type HooksProgram } from './hooks-harness.js';

const thing = (name: string, hooks: Record<string, string[]>, props: Record<string, unknown> = { a: 'A' }) => ({ name, props, hooks });

describe('conformance: resource hooks', () => {
  // TestResourceHooksAfterCreate, TestResourceHookBeforeCreateError's arguments
  it('runs before and after create hooks around the provider create, with the inputs, the id and the outputs, and records the hook names', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'before' }, { name: 'after' }], resources: [thing('resA', { beforeCreate: ['before'], afterCreate: ['after'] })] });
    const calls = stack.recorded();

    expect(run.result.errors).toEqual([]);
    expect(callLines(calls)).toEqual(['hook before resA', 'create resA', 'hook after resA']);
    const [before, , after] = calls;
    expect(before).toMatchObject({ urn: stack.urn('resA'), id: '', type: 'testprov:index:Thing', newInputs: { a: 'A' } });
    expect(before?.oldInputs ?? before?.newOutputs ?? before?.oldOutputs).toBeUndefined();
    expect(after).toMatchObject({ id: stack.resource('resA')?.id, newInputs: { a: 'A' }, newOutputs: { a: 'A' } });
    expect(after?.oldInputs ?? after?.oldOutputs).toBeUndefined();
    expect(stack.resource('resA')?.resourceHooks).toEqual({ AfterCreate: ['after'], BeforeCreate: ['before'] });
    expect([stack.state?.version, stack.state?.features]).toEqual([4, ['hooks']]);
  });

  // TestResourceHookDryRun
  it('runs in a preview only the hooks registered with onDryRun, and both in the update', async () => {
    const stack = new HooksStack();
    const spec = { hooks: [{ name: 'dry', onDryRun: true }, { name: 'wet' }], resources: [thing('resA', { afterCreate: ['dry', 'wet'] })] };

    await stack.deployHooks('preview', spec);
    const previewCalls = stack.recorded();
    await stack.deployHooks('update', spec);
    const updateCalls = stack.recorded();

    expect(previewCalls.filter((c) => c.op === 'hook').map((c) => [c.hook, c.dryRun])).toEqual([['dry', true]]);
    expect(updateCalls.filter((c) => c.op === 'hook').map((c) => [c.hook, c.dryRun])).toEqual([['dry', false], ['wet', false]]);
  });

  // TestResourceHookBeforeCreateError
  it('fails the create when a before hook fails: the provider is not called and nothing is recorded', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'myHook', fail: 'Oh no' }], resources: [thing('resA', { beforeCreate: ['myHook'] })] });

    expect(run.result.ok).toBe(false);
    expect(run.diags).toContainEqual({ severity: 'error', urn: stack.urn('resA'), message: 'before hook "myHook" failed: Oh no' });
    expect(callLines(stack.recorded())).toEqual(['hook myHook resA']);
    expect(stack.resource('resA')).toBeUndefined();
  });

  // TestResourceHookAfterCreateError, TestResourceHookAfterCreateErrorFailsFast
  it('keeps a resource whose after hook failed, fails the run and starts no further step', async () => {
    const stack = new HooksStack();
    // resB is registered once resA's registration answered, as in Pulumi's test
    const spec = { hooks: [{ name: 'myHook', fail: 'Oh no' }], resources: [thing('resA', { afterCreate: ['myHook'] }), { name: 'resB', props: { b: 'B' }, dependsOn: ['resA'] }] };

    const run = await stack.deployHooks('update', spec);

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run)).toContain('after hook "myHook" failed: Oh no');
    expect(run.diags.find((d) => d.message.startsWith('after hook'))?.urn).toBe(stack.urn('resA'));
    expect(stepList(run)).toEqual(['create resA']);
    expect(stack.resource('resA')).toBeDefined();
    expect(stack.resource('resB')).toBeUndefined();
  });

  // TestResourceHookAfterCreateErrorContinueOnError
  it('goes on after a failed after hook with --continue-on-error, and still fails the run', async () => {
    const stack = new HooksStack();
    const spec = { hooks: [{ name: 'myHook', fail: 'hook failed' }], resources: [thing('resA', { afterCreate: ['myHook'] }), { name: 'resB', props: { b: 'B' }, dependsOn: ['resA'] }] };

    const run = await stack.deployHooks('update', spec, { continueOnError: true });

    expect(run.result.ok).toBe(false);
    expect(run.result.errors.join('\n')).toContain('hook failed');
    expect(stack.resource('resA')).toBeDefined();
    expect(stack.resource('resB')).toBeDefined();
  });

  // TestResourceHookBeforeCreateErrorIgnoreErrors, TestResourceHookAfterCreateErrorIgnoreErrors
  it('reports a failing hook registered with ignoreErrors as a warning and goes on', async () => {
    const stack = new HooksStack();
    const hooks: HookSpec[] = [{ name: 'early', fail: 'Oh no', ignoreErrors: true }, { name: 'late', fail: 'Oh no', ignoreErrors: true }];

    const run = await stack.deployHooks('update', { hooks, resources: [thing('resA', { beforeCreate: ['early'], afterCreate: ['late'] })] });

    expect(run.result.errors).toEqual([]);
    const warnings = run.diags.filter((d) => d.severity === 'warning' && d.urn === stack.urn('resA')).map((d) => d.message);
    expect(warnings).toEqual(['BeforeCreate hook "early" failed: Oh no', 'AfterCreate hook "late" failed: Oh no']);
    expect(stack.resource('resA')).toBeDefined();
  });

  // TestResourceHookBeforeUpdate
  it("runs the new registration's update hooks with the new and old inputs and the old outputs, then the new outputs", async () => {
    const stack = new HooksStack();
    const hooks: HookSpec[] = [{ name: 'old' }, { name: 'before' }, { name: 'after' }];
    await stack.deployHooks('update', { hooks, resources: [thing('resA', { beforeUpdate: ['old'] }, { frob: 'baz' })] });
    stack.recorded();

    const run = await stack.deployHooks('update', { hooks, resources: [thing('resA', { beforeUpdate: ['before'], afterUpdate: ['after'] }, { frob: 'updated' })] });
    const calls = stack.recorded();

    expect(run.result.errors).toEqual([]);
    expect(callLines(calls)).toEqual(['hook before resA', 'update resA', 'hook after resA']);
    expect(calls[0]).toMatchObject({ newInputs: { frob: 'updated' }, oldInputs: { frob: 'baz' }, oldOutputs: { frob: 'baz' } });
    expect(calls[0]?.newOutputs).toBeUndefined();
    expect(calls[2]).toMatchObject({ newOutputs: { frob: 'updated' }, oldOutputs: { frob: 'baz' } });
  });

  // TestResourceHookBeforeUpdateError
  it('fails the update when a before hook fails, leaving the resource as it was', async () => {
    const stack = new HooksStack();
    const hooks: HookSpec[] = [{ name: 'hook', fail: 'this hook returns an error' }];
    await stack.deployHooks('update', { hooks, resources: [thing('resA', { beforeUpdate: ['hook'] }, { foo: 'bar' })] });
    stack.recorded();

    const run = await stack.deployHooks('update', { hooks, resources: [thing('resA', { beforeUpdate: ['hook'] }, { foo: 'updated' })] });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run)).toContain('before hook "hook" failed: this hook returns an error');
    expect(callLines(stack.recorded())).toEqual(['hook hook resA']);
    expect(stack.resource('resA')?.outputs?.foo).toBe('bar');
  });

  // TestResourceHookAfterDelete, TestResourceHookBeforeDeleteError, TestResourceHookAfterDeleteError
  it('runs the delete hooks the state recorded for a resource no longer in the program', async () => {
    const hooks: HookSpec[] = [{ name: 'before' }, { name: 'after' }, { name: 'broken', fail: 'Oh no' }];
    const deleted = async (binding: Record<string, string[]>) => {
      const stack = new HooksStack();
      await stack.deployHooks('update', { hooks, resources: [thing('resA', binding)] });
      stack.recorded();
      const run = await stack.deployHooks('update', { hooks, resources: [] });
      return { run, calls: stack.recorded(), kept: stack.resource('resA') !== undefined };
    };

    const plain = await deleted({ beforeDelete: ['before'], afterDelete: ['after'] });
    const refused = await deleted({ beforeDelete: ['broken'] });
    const late = await deleted({ afterDelete: ['broken'] });

    expect(callLines(plain.calls)).toEqual(['hook before resA', 'delete resA', 'hook after resA']);
    expect(plain.calls[0]).toMatchObject({ oldInputs: { a: 'A' }, oldOutputs: { a: 'A' } });
    expect(plain.calls[0]?.newInputs ?? plain.calls[0]?.newOutputs).toBeUndefined();
    expect([plain.run.result.ok, plain.kept]).toEqual([true, false]);
    expect(callLines(refused.calls)).toEqual(['hook broken resA']);
    expect(errorsOf(refused.run)).toContain('before hook "broken" failed: Oh no');
    expect([refused.run.result.ok, refused.kept]).toEqual([false, true]);
    expect(callLines(late.calls)).toEqual(['delete resA', 'hook broken resA']);
    expect(errorsOf(late.run)).toContain('after hook "broken" failed: Oh no');
    expect([late.run.result.ok, late.kept]).toEqual([false, false]);
  });

  // RunHooks: a hook the state names must still be registered by the program that deletes the resource
  it('fails a delete whose recorded hook the program no longer registers', async () => {
    const stack = new HooksStack();
    await stack.deployHooks('update', { hooks: [{ name: 'gone' }], resources: [thing('resA', { beforeDelete: ['gone'] })] });
    stack.recorded();

    const run = await stack.deployHooks('update', { resources: [] });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run)).toContain('hook "gone" was not registered');
    expect(stack.recorded()).toEqual([]);
    expect(stack.resource('resA')).toBeDefined();
  });

  // TestResourceHookComponent, TestResourceHookComponentAfterDelete
  it("runs a component's after create hook once it registers its outputs, and its delete hooks from the state", async () => {
    const stack = new HooksStack();
    const hooks: HookSpec[] = [{ name: 'created' }, { name: 'deleted' }];
    const component = { name: 'comp', kind: 'component' as const, props: { label: 'L' }, hooks: { afterCreate: ['created'], afterDelete: ['deleted'] } };

    await stack.deployHooks('update', { hooks, resources: [component] });
    const created = stack.recorded();
    await stack.deployHooks('update', { hooks, resources: [] });
    const deleted = stack.recorded();

    expect(created).toMatchObject([{ op: 'hook', hook: 'created', type: 'hooks:index:Component', newInputs: { label: 'L' }, newOutputs: { label: 'L' } }]);
    expect(deleted).toMatchObject([{ op: 'hook', hook: 'deleted', type: 'hooks:index:Component', oldOutputs: { label: 'L' } }]);
  });

  // TestResourceHookTransform
  it('runs hooks a resource transform binds', async () => {
    const stack = new HooksStack();

    await stack.deployHooks('update', { hooks: [{ name: 'myHook' }], resources: [{ name: 'resA', transformHooks: { beforeCreate: ['myHook'] } }] });

    expect(callLines(stack.recorded())).toEqual(['hook myHook resA', 'create resA']);
    expect(stack.resource('resA')?.resourceHooks).toEqual({ BeforeCreate: ['myHook'] });
  });

  // TestResourceHookDeleteErrorWhenNoRunProgram
  it('refuses a destroy without the program when the state binds delete hooks, deleting nothing', async () => {
    const stack = new HooksStack();
    await stack.deployHooks('update', { hooks: [{ name: 'myHook' }], resources: [thing('resA', { beforeDelete: ['myHook'] })] });
    stack.recorded();

    const run = await stack.deployHooks('destroy', {});

    expect(run.result.ok).toBe(false);
    expect(run.result.errors).toEqual(['You must run with the `--run-program` flag to use delete hooks during destroy.']);
    expect(run.diags).toContainEqual({ severity: 'error', urn: stack.urn('resA'), message: 'Resource has delete hooks registered, but the program is not running. Hooks: myHook' });
    expect(stack.recorded()).toEqual([]);
    expect(stack.resource('resA')).toBeDefined();
  });

  // TestResourceHookDeleteErrorWhenNoRunProgram, with --run-program: the program registers the hooks, so they run
  it('runs the delete hooks when the destroy runs the program', async () => {
    const stack = new HooksStack();
    const program: HooksProgram = { hooks: [{ name: 'myHook' }], resources: [thing('resA', { beforeDelete: ['myHook'] })] };
    await stack.deployHooks('update', program);
    stack.recorded();

    const run = await stack.deployHooks('destroy', program, { runProgram: true });

    expect(run.result.ok, run.result.errors.join('\n')).toBe(true);
    expect(callLines(stack.recorded())).toEqual(['hook myHook resA', 'delete resA']);
    expect(stack.resource('resA')).toBeUndefined();
  });
});
