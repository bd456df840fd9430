/**
 * pulumi-policy's tests/integration validate_resource and validate_stack scenarios (TestValidateResource,
 * TestValidateStack), run with `stackyard up --policy-pack`: the violations each Go test expects in the output, its
 * exit status, and (beyond the Go test) what the random provider created and the events the service receives.
 */
import { describe, expect, it } from 'vitest';
import { eventsOf, PolicyStack, upWithPack } from './policy-harness.js';

describe('validate_resource (pulumi-policy TestValidateResource)', () => {
  const stack = new PolicyStack('validate_resource');

  it('scenario 2: a resource breaking no policy is created, the pack listed as passed, the events sent as pulumi sends them', async () => {
    const run = await upWithPack(stack, 2);

    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/Policies:\n {4}✅ validate-resource-test-policy@v0\.0\.1 \(local: .*packs\/validate_resource\)\n/);
    const summaries = eventsOf<{ resourceUrn: string; passed?: string[]; failed?: string[] }>(run, 'policyAnalyzeSummaryEvent');
    const hello = summaries.find((s) => s.resourceUrn.endsWith('::hello'));
    expect(hello).toEqual({
      resourceUrn: 'urn:pulumi:dev::policy-tests::pulumi-nodejs:dynamic:Resource::hello',
      policyPackName: 'validate-resource-test-policy',
      policyPackVersion: '0.0.1',
      policyPackVersionTag: '0.0.1',
      passed: ['dynamic-no-state-with-value-1', 'dynamic-no-state-with-value-2', 'dynamic-no-state-with-value-3-or-4', 'dynamic-no-state-with-value-5', 'large-resource', 'test-type-checks'],
    });
    expect(eventsOf(run, 'policyAnalyzeStackSummaryEvent')).toContainEqual({ policyPackName: 'validate-resource-test-policy', policyPackVersion: '0.0.1', policyPackVersionTag: '0.0.1' });
    const [summary] = eventsOf<{ PolicyPacks: Record<string, string> }>(run, 'summaryEvent');
    expect(Object.entries(summary!.PolicyPacks)).toEqual([[expect.stringMatching(/^validate-resource-test-policy\|local\|.*packs\/validate_resource$/), '0.0.1']]);
  }, 120_000);

  it('scenario 3: violates the first policy: the update fails with the violation', async () => {
    const run = await upWithPack(stack, 3);

    expect(run.code).toBe(1);
    expect(run.out).toContain('❌ validate-resource-test-policy@v0.0.1');
    expect(run.out).toContain('[mandatory]  dynamic-no-state-with-value-1  (pulumi-nodejs:dynamic:Resource: a)');
    expect(run.out).toContain('Prohibits setting state to 1 on dynamic resources.');
    expect(run.out).toContain("'state' must not have the value 1.");
    expect(run.out).not.toContain('Resources:');
    expect(eventsOf(run, 'policyEvent')).toContainEqual({
      resourceUrn: 'urn:pulumi:dev::policy-tests::pulumi-nodejs:dynamic:Resource::a',
      message: "Prohibits setting state to 1 on dynamic resources.\n'state' must not have the value 1.\n",
      color: 'never',
      policyName: 'dynamic-no-state-with-value-1',
      policyPackName: 'validate-resource-test-policy',
      policyPackVersion: '0.0.1',
      policyPackVersionTag: '0.0.1',
      enforcementLevel: 'mandatory',
    });
  }, 120_000);

  it('scenario 7: violates the strongly typed policy: with --skip-preview the update stops and the RandomUuid is never created', async () => {
    const run = await upWithPack(stack, 7, { skipPreview: true });

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  randomuuid-no-keepers  (random:index:RandomUuid: r1)');
    expect(run.out).toContain("RandomUuid must not have an empty 'keepers'.");
    expect(run.created).toEqual([]);
  }, 120_000);

  it('scenarios 8 and 10: a RandomUuid with keepers and a RandomPassword passing the typed checks are created', async () => {
    const withKeepers = await upWithPack(stack, 8);
    const password = await upWithPack(stack, 10);

    expect(withKeepers.code, withKeepers.out).toBe(0);
    expect(withKeepers.created).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomUuid:RandomUuid::r2']);
    expect(password.code, password.out).toBe(0);
    expect(password.created).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomPassword:RandomPassword::pass']);
  }, 180_000);

  it('scenario 9: a URN given with a resource violation is ignored: the violation is the resource\'s own', async () => {
    const run = await upWithPack(stack, 9);

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  dynamic-no-state-with-value-5  (pulumi-nodejs:dynamic:Resource: e)');
  }, 120_000);
});

describe('validate_stack (pulumi-policy TestValidateStack)', () => {
  const stack = new PolicyStack('validate_stack');

  it('scenario 5: a stack policy naming a resource reports the violation on it', async () => {
    const run = await upWithPack(stack, 5);

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  dynamic-no-state-with-value-3  (pulumi-nodejs:dynamic:Resource: c)');
    expect(run.out).toContain("'state' must not have the value 3.");
  }, 120_000);

  it('scenario 7: a violation naming no resource', async () => {
    const run = await upWithPack(stack, 7);

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  no-randomstrings');
    expect(run.out).toContain('Prohibits RandomString resources.');
    expect(run.out).toContain('RandomString resources are not allowed.');
  }, 120_000);

  it('scenario 9: args.resources filtered by type', async () => {
    const run = await upWithPack(stack, 9);

    expect(run.code, run.out).toBe(0);
    expect(run.created).toHaveLength(3);
  }, 120_000);

  it('scenario 10: a stack policy at level remediate is treated as mandatory', async () => {
    const run = await upWithPack(stack, 10);

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  dynamic-no-foo-with-value-bar');
    expect(run.out).toContain("'foo' must not have the value 'bar'.");
  }, 120_000);
});
