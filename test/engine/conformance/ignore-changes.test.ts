/**
 * The `ignoreChanges` resource option against Pulumi's own cases: `TestIgnoreChanges` (pkg/resource/deploy/
 * step_generator_test.go, the table for `processIgnoreChanges`) and `TestIgnoreChangesInvalidPaths`
 * (pkg/engine/lifecycletest/pulumi_test.go). Inputs in, inputs out: the engine's own function, no processes.
 */
import { describe, expect, it } from 'vitest';
import { applyIgnoreChanges } from '../../../cli/engine/steps/ignore-changes.js';
import { makeSecret, type PropertyMap } from '../../../cli/engine/resource/properties.js';
import { conformanceStack } from './conformance-harness.js';

interface Case {
  name: string;
  olds: PropertyMap;
  news: PropertyMap;
  paths: string[];
  /** Pulumi's expected inputs; absent means "the old inputs". */
  expected?: PropertyMap;
}

// TestIgnoreChanges, case by case
const table: Case[] = [
  { name: 'present in old and new', olds: { a: { b: 'foo' } }, news: { a: { b: 'bar' }, c: 42 }, paths: ['a.b'], expected: { a: { b: 'foo' }, c: 42 } },
  { name: 'missing in new', olds: { a: { b: 'foo' } }, news: { a: {}, c: 42 }, paths: ['a.b'], expected: { a: { b: 'foo' }, c: 42 } },
  { name: 'present in old and new, with [""]', olds: { a: { b: { c: 'foo' } } }, news: { a: { b: { c: 'bar' } }, c: 42 }, paths: ['a.b["c"]'], expected: { a: { b: { c: 'foo' } }, c: 42 } },
  { name: 'missing in new, with [""]', olds: { a: { b: { c: 'foo' } } }, news: { a: { b: {} }, c: 42 }, paths: ['a.b["c"]'], expected: { a: { b: { c: 'foo' } }, c: 42 } },
  { name: 'missing in old deletes', olds: {}, news: { a: { b: 'foo' }, c: 42 }, paths: ['a.b'], expected: { a: {}, c: 42 } },
  { name: 'missing keys in old and new are OK', olds: {}, news: {}, paths: ['a', 'a.b', 'a.c[0]'] },
  { name: 'missing parent keys in only new', olds: { a: { b: 'foo' } }, news: {}, paths: ['a.b'], expected: {} },
  {
    name: 'arrays with different lengths',
    olds: { a: [{ b: 'foo', c: 'bar' }, { b: 'bar', c: 'baz' }] },
    news: { a: [{ b: 'bar', c: 'bar' }, { b: 'qux', c: 'baz' }, { b: 'baz', c: 'qux' }] },
    paths: ['a[*].b'],
    expected: { a: [{ b: 'foo', c: 'bar' }, { b: 'bar', c: 'baz' }, { b: 'baz', c: 'qux' }] },
  },
  {
    name: 'shorter new array',
    olds: { a: [{ b: 'foo', c: 'bar' }, { b: 'bar', c: 'baz' }] },
    news: { a: [{ b: 'bar', c: 'bar' }] },
    paths: ['a[*].b'],
    expected: { a: [{ b: 'foo', c: 'bar' }] },
  },
];

describe('conformance: ignoreChanges (Pulumi TestIgnoreChanges)', () => {
  it.each(table)('$name', ({ olds, news, paths, expected }) => {
    expect(applyIgnoreChanges(olds, news, paths).inputs).toEqual(expected ?? olds);
  });
});

describe('conformance: ignoreChanges on paths that do not exist on both sides (Pulumi TestIgnoreChangesInvalidPaths)', () => {
  const olds: PropertyMap = { foo: { bar: 'baz' }, qux: ['zed'] };

  it('a removed parent object is not brought back, and the path is reported', () => {
    const result = applyIgnoreChanges(olds, {}, ['foo.bar']);

    expect(result.inputs).toEqual({});
    expect(result.invalidPaths).toEqual(['foo.bar']);
  });

  it('an index past the end of the new array is not brought back', () => {
    expect(applyIgnoreChanges(olds, { qux: [] }, ['qux[0]']).inputs).toEqual({ qux: [] });
  });

  it('an index under a removed array does not turn into an object key', () => {
    expect(applyIgnoreChanges(olds, {}, ['qux[0]']).inputs).toEqual({});
  });

  it('an index past the end of the old array keeps the new element', () => {
    expect(applyIgnoreChanges(olds, { qux: ['zed', 'zob'] }, ['qux[1]']).inputs).toEqual({ qux: ['zed', 'zob'] });
  });
});

describe('conformance: ignoreChanges and secrets (PropertyPath.Reset)', () => {
  it('a value kept from inside an old secret stays secret in plain new inputs', () => {
    const result = applyIgnoreChanges({ cfg: makeSecret({ password: 'old' }) }, { cfg: { password: 'new', user: 'u' } }, ['cfg.password']);

    expect(result.inputs).toEqual({ cfg: { password: makeSecret('old'), user: 'u' } });
    expect(result.invalidPaths).toEqual([]);
  });
});

describe('conformance: ignoreChanges in a run (Pulumi TestIgnoreChangesInvalidPaths, first step)', () => {
  it('a path under a removed parent is reported as information, and the parent stays removed', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: { bar: 'baz' }, qux: ['zed'] } }] });

    const run = await stack.deploy('update', { resources: [{ name: 'resA', props: {}, ignoreChanges: ['foo.bar'] }] });

    expect(run.result.errors).toEqual([]);
    const infos = run.diags.filter((d) => d.severity === 'info' && d.urn === stack.urn('resA')).map((d) => d.message);
    expect(infos).toEqual(['cannot ignore changes in added or removed elements of the path: "foo.bar"']);
    expect(stack.resource('resA')?.inputs).toEqual({});
  });
});
