import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../state/deployment.js';
import { goDuration, hookBindingOf, resourceOptionsOf } from './hook-options.js';
import { resproto } from '../rpc/proto.js';

describe('the resource options hooks are told', () => {
  // Pulumi's TestResourceHooks_OptionsAreSent: the new options of a create carry the registration's options
  it('reads parent, protect, retainOnDelete, dependencies, ignore/replace paths, secret outputs and hooks from the state', () => {
    const parent = 'urn:pulumi:test::test::pkgA:m:parent::parent';
    const state: ResourceState = {
      urn: `urn:pulumi:test::test::pkgA:m:parent$pkgA:m:typA::resA`,
      custom: true,
      type: 'pkgA:m:typA',
      parent,
      protect: true,
      retainOnDelete: true,
      dependencies: [parent],
      ignoreChanges: ['a'],
      replaceOnChanges: ['b'],
      additionalSecretOutputs: ['secret'],
      customTimeouts: { create: 90 },
      resourceHooks: { BeforeCreate: ['myHook'] },
    };

    const o = resourceOptionsOf(state)!;

    expect(o.getParent()).toBe(parent);
    expect([o.hasProtect(), o.getProtect(), o.hasRetainOnDelete(), o.getRetainOnDelete()]).toEqual([true, true, true, true]);
    expect(o.getDependsOnList()).toEqual([parent]);
    expect([o.getIgnoreChangesList(), o.getReplaceOnChangesList(), o.getAdditionalSecretOutputsList()]).toEqual([['a'], ['b'], ['secret']]);
    expect(o.getHooks()?.getBeforeCreateList()).toEqual(['myHook']);
    expect(o.getCustomTimeouts()?.getCreate()).toBe('1m30s');
  });

  // Pulumi's TestResourceHooks_OldAndNewOptionsAreSentOnUpdate: protect is always set, false included
  it('always sets protect and retainOnDelete, and sends no options without a state', () => {
    const o = resourceOptionsOf({ urn: 'urn:pulumi:s::p::t::r', custom: true, type: 't' })!;

    expect([o.hasProtect(), o.getProtect(), o.hasRetainOnDelete(), o.getRetainOnDelete()]).toEqual([true, false, true, false]);
    expect(o.hasHooks()).toBe(false);
    expect(resourceOptionsOf(undefined)).toBeUndefined();
  });

  it('writes durations as Go does and reads a binding without its empty lists', () => {
    const binding = new resproto.RegisterResourceRequest.ResourceHooksBinding().setAfterDeleteList(['h1']).setOnErrorList(['e1', 'e2']);

    expect([goDuration(5), goDuration(90), goDuration(3600), goDuration(0.25), goDuration(undefined)]).toEqual(['5s', '1m30s', '1h0m0s', '250ms', '']);
    expect(hookBindingOf(binding)).toEqual({ AfterDelete: ['h1'], OnError: ['e1', 'e2'] });
    expect(hookBindingOf(new resproto.RegisterResourceRequest.ResourceHooksBinding())).toBeUndefined();
  });
});
