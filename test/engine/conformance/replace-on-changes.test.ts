/**
 * The `replaceOnChanges` resource option, from Pulumi's `applyReplaceOnChanges` (pkg/resource/deploy/
 * step_generator.go, with `PropertyPath.Contains`) and `TestReplaceOnChanges` (pkg/engine/lifecycletest/
 * pulumi_test.go, "provider diff" and "engine diff"): a changed path replaces when a replaceOnChanges path
 * contains it; a diff without changes never replaces. The step decision is the engine's own pure function.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../../../cli/engine/state/deployment.js';
import type { PropertyMap } from '../../../cli/engine/resource/properties.js';
import type { DiffResult } from '../../../cli/engine/plugins/providers/provider-client.js';
import { decideStep, normalizeDiff, pathContains } from '../../../cli/engine/steps/step-generator.js';
import type { RegisterGoal } from '../../../cli/engine/steps/step-types.js';

const PROVIDER = 'urn:pulumi:dev::p::pulumi:providers:testprov::default::prov-1';

function goal(replaceOnChanges: string[]): RegisterGoal {
  return {
    type: 'testprov:index:Thing', name: 'resA', custom: true, inputs: {}, dependencies: [], propertyDependencies: {},
    ignoreChanges: [], replaceOnChanges, additionalSecretOutputs: [], aliasSpecs: [], aliasUrns: [],
  };
}

function old(inputs: PropertyMap): ResourceState {
  return { urn: 'urn:pulumi:dev::p::testprov:index:Thing::resA', custom: true, type: 'testprov:index:Thing', id: 'id123', inputs, outputs: inputs, provider: PROVIDER };
}

/** What a provider answering with its own detailed diff says (Pulumi's "provider diff" variant). */
function providerDiff(changedPaths: string[]): DiffResult {
  return { changes: changedPaths.length ? 'some' : 'none', changedKeys: changedPaths, replaces: [], deleteBeforeReplace: false };
}

/** The engine's diff of a provider that answers "unknown" (Pulumi's "engine diff" variant). */
function engineDiff(olds: PropertyMap, news: PropertyMap): DiffResult {
  return normalizeDiff({ changes: 'unknown', changedKeys: [], replaces: [], deleteBeforeReplace: false }, olds, news);
}

const before: PropertyMap = { a: 1, b: { c: 'foo', d: 'x' } };

describe('conformance: replaceOnChanges (Pulumi TestReplaceOnChanges)', () => {
  const cases: { name: string; news: PropertyMap; roc: string[]; provider: string[]; kind: 'replace' | 'update' }[] = [
    { name: 'a change to a replaceOnChanges property replaces', news: { a: 2, b: { c: 'foo', d: 'x' } }, roc: ['a'], provider: ['a'], kind: 'replace' },
    { name: 'a change to a nested replaceOnChanges property replaces', news: { a: 1, b: { c: 'bar', d: 'x' } }, roc: ['b.c'], provider: ['b.c'], kind: 'replace' },
    { name: 'a change under a replaceOnChanges parent replaces', news: { a: 1, b: { c: 'bar', d: 'x' } }, roc: ['b'], provider: ['b.c'], kind: 'replace' },
    { name: '"*" replaces on any change', news: { a: 3, b: { c: 'foo', d: 'x' } }, roc: ['*'], provider: ['a'], kind: 'replace' },
    { name: 'a change elsewhere is an update', news: { a: 4, b: { c: 'foo', d: 'x' } }, roc: [], provider: ['a'], kind: 'update' },
    { name: 'a change to a sibling of a nested replaceOnChanges path is an update', news: { a: 1, b: { c: 'foo', d: 'y' } }, roc: ['b.c'], provider: ['b.d'], kind: 'update' },
    { name: 'an array element under a wildcard replaces', news: { a: 1, b: { c: 'foo', d: 'x' }, list: [{ n: 2 }] }, roc: ['list[*].n'], provider: ['list[0].n'], kind: 'replace' },
  ];

  for (const c of cases) {
    it(`${c.name} (provider diff)`, () => {
      expect(decideStep(goal(c.roc), old(before), c.news, PROVIDER, providerDiff(c.provider)).kind).toBe(c.kind);
    });
    it(`${c.name} (engine diff)`, () => {
      const olds = c.news.list ? { ...before, list: [{ n: 1 }] } : before;
      expect(decideStep(goal(c.roc), old(olds), c.news, PROVIDER, engineDiff(olds, c.news)).kind).toBe(c.kind);
    });
  }

  // TestReplaceOnChanges' last step: the provider's diff decides; when it sees no change, nothing is replaced
  it('a provider that reports no changes is not overridden by replaceOnChanges', () => {
    const news = { a: 42, b: { c: 'foo', d: 'x' } };

    expect(decideStep(goal(['a']), old(before), news, PROVIDER, providerDiff([])).kind).toBe('same');
  });

  it("a top-level changed key does not match a deeper replaceOnChanges path (PropertyPath.Contains)", () => {
    expect(pathContains('b.c', 'b')).toBe(false);
    expect(pathContains('b', 'b.c')).toBe(true);
    expect(pathContains('list[*].n', 'list[3].n')).toBe(true);
    expect(pathContains('list[0]', 'list[1]')).toBe(false);
  });
});

// generateStepsFromDiff's `hasInitErrors` branches and applyReplaceOnChanges' `#initerror` key
describe('conformance: a resource left with init errors', () => {
  const failed: ResourceState = { ...old(before), initErrors: ['timed out waiting for readiness'] };

  it('gets an update even when its diff has no changes', () => {
    expect(decideStep(goal([]), failed, before, PROVIDER, providerDiff([])).kind).toBe('update');
  });

  it('is replaced when a replaceOnChanges path covers the init error ("*")', () => {
    const decision = decideStep(goal(['*']), failed, before, PROVIDER, providerDiff([]));

    expect(decision).toMatchObject({ kind: 'replace', replaceKeys: ['#initerror'] });
  });

  it('is only updated when replaceOnChanges names other properties', () => {
    expect(decideStep(goal(['a']), failed, before, PROVIDER, providerDiff([])).kind).toBe('update');
  });
});
