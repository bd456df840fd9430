/**
 * Error hooks (`RegisterErrorHook` and the `onError` hook binding), from Pulumi's
 * pkg/engine/lifecycletest/error_hooks_test.go and `withRetries` (retries.go): a failed create, update or delete
 * calls every error hook with the failed operation and the errors so far (newest first); any hook answering true
 * tries the operation again, and the 100th failure ends it.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf } from './conformance-harness.js';
import { callLines, HooksStack, type HookSpec, type RecordedCall } from './hooks-harness.js';

const retryingHooks: HookSpec[] = [
  { name: 'hook1', kind: 'error', retries: 1 },
  { name: 'hook2', kind: 'error' },
];
const onError = { onError: ['hook1', 'hook2'] };

const errorHookCalls = (calls: RecordedCall[]) => calls.filter((c) => c.op === 'error-hook').map((c) => [c.hook, c.failedOperation, c.errors]);
const warningsOf = (run: { diags: { severity: string; message: string }[] }) => run.diags.filter((d) => d.severity === 'warning').map((d) => d.message);

describe('conformance: error hooks', () => {
  // TestErrorHooks_OperationIdentifierAndMultipleHooks_Create, TestErrorHooks_RetrySemantics…_RetryIfAnyHookReturnsTrue
  it('retries a failed create when any error hook asks, telling every hook the operation and the errors', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: retryingHooks, resources: [{ name: 'resA', props: { fail: 'create', failTimes: 1 }, hooks: onError }] });
    const calls = stack.recorded();

    expect(run.result.errors).toEqual([]);
    expect(callLines(calls)).toEqual(['create resA', 'error-hook hook1 resA', 'error-hook hook2 resA', 'create resA']);
    const errors = ['injected create failure for resA (attempt 1)'];
    expect(errorHookCalls(calls)).toEqual([['hook1', 'create', errors], ['hook2', 'create', errors]]);
    expect(warningsOf(run)).toEqual(['retrying create due to on-error hook request (1/100)']);
    expect(stack.resource('resA')?.resourceHooks).toEqual({ OnError: ['hook1', 'hook2'] });
  });

  // TestErrorHooks_OperationIdentifierAndMultipleHooks_Update, …_Delete, TestErrorHooks_NotCalledOnSuccess_*
  it('names the update and the delete as the failed operation, and is not called when they succeed', async () => {
    const stack = new HooksStack();
    await stack.deployHooks('update', { hooks: retryingHooks, resources: [{ name: 'resA', props: { v: 'a' }, hooks: onError }] });
    const created = stack.recorded();

    const updated = await stack.deployHooks('update', { hooks: retryingHooks, resources: [{ name: 'resA', props: { v: 'b', fail: 'update', failTimes: 1 }, hooks: onError }] });
    const updateCalls = stack.recorded();
    await stack.deployHooks('update', { hooks: retryingHooks, resources: [{ name: 'resA', props: { v: 'c', fail: 'delete', failTimes: 1 }, hooks: onError }] });
    stack.recorded();
    const deleted = await stack.deployHooks('update', { hooks: retryingHooks, resources: [] });
    const deleteCalls = stack.recorded();

    expect(callLines(created)).toEqual(['create resA']);
    expect(updated.result.errors).toEqual([]);
    expect(callLines(updateCalls)).toEqual(['update resA', 'error-hook hook1 resA', 'error-hook hook2 resA', 'update resA']);
    expect(errorHookCalls(updateCalls)[0]?.[1]).toBe('update');
    expect(deleted.result.errors).toEqual([]);
    expect(callLines(deleteCalls)).toEqual(['delete resA', 'error-hook hook1 resA', 'error-hook hook2 resA', 'delete resA']);
    expect(errorHookCalls(deleteCalls)[0]?.[1]).toBe('delete');
    expect(stack.resource('resA')).toBeUndefined();
  });

  // TestErrorHooks_NoRetryIfAllHooksReturnFalse_Create, TestErrorHooks_PlainCreateErrorRunsOnErrorHook
  it('fails the create with its own error when every hook declines', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'no', kind: 'error' }], resources: [{ name: 'resA', props: { fail: 'create' }, hooks: { onError: ['no'] } }] });

    expect(run.result.ok).toBe(false);
    expect(callLines(stack.recorded())).toEqual(['create resA', 'error-hook no resA']);
    expect(errorsOf(run).join('\n')).toContain('injected create failure for resA');
    expect(warningsOf(run)).toEqual([]);
  });

  // TestErrorHooks_RetryThenNoRetry_OperationFails_Create
  it('gives every hook the errors so far, newest first, and fails with the last one once no hook retries', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'once', kind: 'error', retries: 1 }], resources: [{ name: 'resA', props: { fail: 'create', failTimes: 5 }, hooks: { onError: ['once'] } }] });
    const calls = stack.recorded();

    expect(run.result.ok).toBe(false);
    expect(errorHookCalls(calls).map((c) => c[2])).toEqual([
      ['injected create failure for resA (attempt 1)'],
      ['injected create failure for resA (attempt 2)', 'injected create failure for resA (attempt 1)'],
    ]);
    expect(errorsOf(run).join('\n')).toContain('injected create failure for resA (attempt 2)');
    expect(stack.resource('resA')).toBeUndefined();
  });

  // TestErrorHooks_RetryLimitWarningAt100_Create
  it('stops after the 100th failed attempt, having asked the hooks 99 times', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'always', kind: 'error', retries: 1000 }], resources: [{ name: 'resA', props: { fail: 'create', failTimes: 1000 }, hooks: { onError: ['always'] } }] });
    const calls = stack.recorded();

    expect(run.result.ok).toBe(false);
    expect(calls.filter((c) => c.op === 'create')).toHaveLength(100);
    expect(calls.filter((c) => c.op === 'error-hook')).toHaveLength(99);
    expect(warningsOf(run).at(-1)).toBe('maximum number of error hook retries (100) reached');
    expect(errorsOf(run)).toContain('maximum number of error hook retries reached');
  });

  // RunErrorHooks: a failing error hook fails the operation
  it('fails the operation when an error hook itself fails', async () => {
    const stack = new HooksStack();

    const run = await stack.deployHooks('update', { hooks: [{ name: 'broken', kind: 'error', fail: 'boom' }], resources: [{ name: 'resA', props: { fail: 'create', failTimes: 1 }, hooks: { onError: ['broken'] } }] });

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run)).toContain('error hooks execution failed: error hook "broken" failed: boom');
    expect(callLines(stack.recorded())).toEqual(['create resA', 'error-hook broken resA']);
  });
});
