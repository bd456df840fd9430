/**
 * pulumi-policy's tests/integration scenarios about what the engine hands a pack (TestResourceOptions,
 * TestUnknownValues, TestParentDependencies, TestProvider, TestRuntimeData, TestDeserialize, TestRemoteComponent,
 * TestStackTags), run with
 * `stackyard up --policy-pack`. Each pack asserts inside validateResource, remediateResource and validateStack; a
 * failed assertion fails the call, so the update fails: a green `up` is the Go test's expectation.
 */
import { deepStrictEqual } from 'node:assert';
import { unknownCheckingProxy } from '@pulumi/policy';
import { describe, expect, it } from 'vitest';
import { stateResources } from './conformance-harness.js';

import { pack, PolicyStack, upWithPack, type PolicyRun } from './policy-harness.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

const STACK = 'urn:pulumi:dev::policy-tests::pulumi:pulumi:Stack::policy-tests-dev';
const created = (run: PolicyRun) => [...run.created].sort();

describe('resource_options (pulumi-policy TestResourceOptions)', () => {
  const stack = new PolicyStack('resource_options');

  it('scenario 1: each resource\'s options reach validateResource, remediateResource and validateStack as Pulumi passes them', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    expect(run.created).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomUuid:RandomUuid::uuid']);
    expect(stateResources(run.state).find((r) => r.urn.endsWith('::protect'))?.protect).toBe(true);
  }, 120_000);

  it('scenario 2: unprotects, so the stack can be destroyed', async () => {
    const up = await upWithPack(stack, 2);
    const destroy = await stack.run('destroy', 2);

    expect(up.code, up.out).toBe(0);
    expect(destroy.code, destroy.out).toBe(0);
    expect(stateResources(destroy.state)).toEqual([]);
  }, 120_000);
});

describe('unknown_values (pulumi-policy TestUnknownValues)', () => {
  const stack = new PolicyStack('unknown_values', { 'aws:region': 'us-west-2' });

  it('a policy reading a value unknown in the preview gets an advisory violation; the update runs and creates both', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    for (const want of [
      'unknown-values-policy@v0.0.1',
      '[advisory]  unknown-values-resource-validation  (random:index:RandomPet: pet)',
      "can't run policy 'unknown-values-resource-validation' from policy pack 'unknown-values-policy@v0.0.1' during preview: string value at .prefix can't be known during preview",
      '[advisory]  unknown-values-stack-validation',
      "can't run policy 'unknown-values-stack-validation' from policy pack 'unknown-values-policy@v0.0.1' during preview: string value at .prefix can't be known during preview",
    ]) expect(run.out).toContain(want);
    expect(created(run)).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomPet:RandomPet::pet', 'urn:pulumi:dev::policy-tests::random:index/randomString:RandomString::str']);
  }, 120_000);
});

describe('parent_dependencies (pulumi-policy TestParentDependencies)', () => {
  const stack = new PolicyStack('parent_dependencies');

  it('validateStack sees each resource\'s parent, dependencies and property dependencies as resources', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    expect(created(run)).toHaveLength(2);
    expect(stateResources(run.state).find((r) => r.urn.endsWith('::b'))?.parent).toBe(STACK);
  }, 120_000);
});

describe('provider (pulumi-policy TestProvider)', () => {
  const stack = new PolicyStack('provider');

  it('each resource\'s provider (default, versioned default, explicit) with its inputs', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    expect(created(run)).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomString:RandomString::str', 'urn:pulumi:dev::policy-tests::random:index/randomUuid:RandomUuid::uuid']);
  }, 120_000);
});

describe('runtime_data (pulumi-policy TestRuntimeData)', () => {
  const stack = new PolicyStack('runtime_data', { 'policy-tests:aConfigValue': 'this value is a value', 'aws:region': 'us-west-2' });

  it('the pack sees the program\'s config, project, stack and isDryRun() in the preview and in the update', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('✅ runtime-data-policy@v0.0.1');
  }, 120_000);
});

describe('why the runtime_data and deserialize packs compare differently from upstream (docs/policy.md)', () => {
  it("@pulumi/policy's props proxy equals a plain object under deepStrictEqual before Node 22 only: Node 22 compares the proxied constructor", () => {
    const config = { 'policy-tests:aConfigValue': 'this value is a value' };
    const proxied = unknownCheckingProxy({ ...config });

    const compare = () => deepStrictEqual(config, proxied);

    if (NODE_MAJOR >= 22) expect(compare).toThrow(/same structure but are not reference-equal/);
    else expect(compare).not.toThrow();
    expect({ ...proxied }).toEqual(config);
  });
});

describe('deserialize (pulumi-policy TestDeserialize)', () => {
  const stack = new PolicyStack('deserialize');

  it('secrets, assets and archives reach the pack as values and as the SDK\'s asset classes', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('✅ deserialize-policy@v0.0.1');
  }, 120_000);
});

describe('remote_component (pulumi-policy TestRemoteComponent)', () => {
  const stack = new PolicyStack('remote_component');

  it("an unknown inside a remote component's input stays at its leaf: only reading it is reported, in the preview", async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    for (const want of [
      'remote-component-policy@v0.0.1',
      '[advisory]  resource-validation  (random:index:RandomString: innerRandom)',
      "can't run policy 'resource-validation' from policy pack 'remote-component-policy@v0.0.1' during preview: string value at .keepers.hi can't be known during preview",
    ]) expect(run.out).toContain(want);
    expect(created(run)).toEqual([
      'urn:pulumi:dev::policy-tests::random:index/randomString:RandomString::random',
      'urn:pulumi:dev::policy-tests::testcomponent:index:Component$random:index/randomString:RandomString::innerRandom',
    ]);
  }, 120_000);
});

describe('stack_tags (pulumi-policy TestStackTags)', () => {
  const stack = new PolicyStack('stack_tags');
  const packs = [{ path: pack('stack_tags') }];

  it("resource and stack policies see the stack's tags", async () => {
    const run = await stack.run('up', 1, { policyPacks: packs }, { stackTags: async () => ({ foo: 'bar', hello: 'world', 'pulumi:project': 'policy-tests' }) });

    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('✅ stack-tags-policy@v0.0.1');
  }, 120_000);

  it('without the tags the policies fail the preview', async () => {
    const run = await stack.run('preview', 1, { policyPacks: packs });

    expect(run.code).toBe(1);
    expect(run.out).toContain('Missing key: foo');
  }, 120_000);
});
