/**
 * Invoke transforms (`RegisterStackInvokeTransform`), from Pulumi's `resmon.Invoke` (source_eval.go): every
 * transform the program registered sees the invoke's token, arguments and options before the provider does, in
 * registration order, each the previous one's result, in previews as in updates.
 */
import { describe, expect, it } from 'vitest';
import { HooksStack } from './hooks-harness.js';

describe('conformance: invoke transforms', () => {
  it('hands the provider the arguments the transforms made, applied in registration order', async () => {
    const stack = new HooksStack();
    const spec = {
      invokeTransforms: [{ set: { a: 1, b: 'first' } }, { set: { b: 'second' } }],
      invokes: [{ output: 'echo', token: 'testprov:index:echo', args: { a: 0, c: 'kept' } }],
    };

    const preview = await stack.deployHooks('preview', spec);
    const update = await stack.deployHooks('update', spec);

    expect(preview.result.errors).toEqual([]);
    expect(update.result.errors).toEqual([]);
    expect(stack.outputs().echo).toEqual({ a: 1, b: 'second', c: 'kept' });
    expect(stack.recorded().filter((c) => c.op === 'invoke')).toHaveLength(2);
  });
});
