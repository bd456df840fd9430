/**
 * pulumi-policy's tests/integration enforcementlevel and config scenarios (TestEnforcementLevel, TestConfig) and
 * remediations, run with `stackyard up --policy-pack [--policy-pack-config]`: the violations and errors each Go
 * test expects, its exit status, and what was created.
 */
import { describe, expect, it } from 'vitest';
import { eventsOf, PolicyStack, upWithPack } from './policy-harness.js';

const RESOURCE_VIOLATION = ['validate-resource  (random:index:RandomString: str)', 'Always reports a resource violation.', 'validate-resource-violation-message'];
const STACK_VIOLATION = ['validate-stack', 'Always reports a stack violation.', 'validate-stack-violation-message'];

describe('enforcementlevel (pulumi-policy TestEnforcementLevel)', () => {
  const stack = new PolicyStack('enforcementlevel');

  it('scenario 1: pack and policy advisory: both violations reported, the run succeeds and creates the string', async () => {
    const run = await upWithPack(stack, 1);

    expect(run.code, run.out).toBe(0);
    for (const text of [...RESOURCE_VIOLATION, ...STACK_VIOLATION]) expect(run.out).toContain(text);
    expect(run.out).toContain('[advisory]  validate-resource  (random:index:RandomString: str)');
    expect(run.out).toContain('⚠️ enforcementlevel-advisory-advisory-test-policy@v0.0.1');
    expect(run.out).toContain('Resources:');
    expect(run.created).toEqual(['urn:pulumi:dev::policy-tests::random:index/randomString:RandomString::str']);
  }, 120_000);

  it('scenario 2: a disabled policy is never called and reports nothing', async () => {
    const run = await upWithPack(stack, 2);

    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toContain('validate-resource-violation-message');
    expect(run.out).toContain('✅ enforcementlevel-advisory-disabled-test-policy@v0.0.1');
  }, 120_000);

  it('scenario 3: a mandatory policy fails the run with both violations', async () => {
    const run = await stack.run('destroy', 3).then(() => upWithPack(stack, 3));

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  validate-resource  (random:index:RandomString: str)');
    expect(run.out).toContain('[mandatory]  validate-stack');
    for (const text of [...RESOURCE_VIOLATION, ...STACK_VIOLATION]) expect(run.out).toContain(text);
    expect(run.created).toEqual([]);
  }, 120_000);

  it('scenario 12: a mandatory pack sets the level of a policy that sets none', async () => {
    const run = await upWithPack(stack, 12);

    expect(run.code).toBe(1);
    expect(run.out).toContain('[mandatory]  validate-resource  (random:index:RandomString: str)');
  }, 120_000);
});

describe('config (pulumi-policy TestConfig)', () => {
  const stack = new PolicyStack('config');
  const config = (c: Record<string, unknown>) => stack.configFile({ 'resource-validation': c, 'stack-validation': c });
  const preamble = 'error: validating policy config: config-policy 0.0.1  ';

  it('scenario 1: a string from the config file reaches both policies (and the remediation)', async () => {
    const run = await upWithPack(stack, 1, { configFile: config({ foo: 'bar' }) });

    expect(run.code, run.out).toBe(0);
  }, 120_000);

  it("scenario 2: the schema's default is used", async () => {
    const run = await upWithPack(stack, 2);

    expect(run.code, run.out).toBe(0);
  }, 120_000);

  it('scenario 6: a required property not set fails before anything runs', async () => {
    const run = await upWithPack(stack, 6);

    expect(run.code).toBe(1);
    expect(run.out).toContain(`${preamble}resource-validation: foo is required`);
    expect(run.out).toContain(`${preamble}stack-validation: foo is required`);
    expect(run.created).toEqual([]);
  }, 120_000);

  it('scenarios 10 and 15: an enum default, a too long string and a float for an integer are each reported', async () => {
    const enumDefault = await upWithPack(stack, 10);
    const twoErrors = await upWithPack(stack, 15, { configFile: config({ foo: 'this is too long', bar: 3.14 }) });

    expect(enumDefault.code).toBe(1);
    expect(enumDefault.out).toContain(`${preamble}resource-validation: foo: foo must be one of the following: "bar", "baz"`);
    expect(twoErrors.code).toBe(1);
    for (const policy of ['resource-validation', 'stack-validation']) {
      expect(twoErrors.out).toContain(`${preamble}${policy}: bar: Invalid type. Expected: integer, given: number`);
      expect(twoErrors.out).toContain(`${preamble}${policy}: foo: String length must be less than or equal to 3`);
    }
  }, 180_000);

  it('scenarios 24 and 25: the initial config, and the config file over it', async () => {
    const initial = await upWithPack(stack, 24);
    const overridden = await upWithPack(stack, 25, { configFile: config({ foo: 'overridden' }) });

    expect(initial.code, initial.out).toBe(0);
    expect(overridden.code, overridden.out).toBe(0);
  }, 180_000);
});

describe('remediations', () => {
  const stack = new PolicyStack('remediate');

  it('a remediation changes the inputs before the provider and the analysis see them; --show-policy-remediations lists it', async () => {
    const run = await upWithPack(stack, 1, { display: { showPolicyRemediations: true } });

    expect(run.code, run.out).toBe(0);
    const first = (run.state?.deployment as { resources: { urn: string; inputs?: Record<string, unknown> }[] }).resources.find((r) => r.urn.endsWith('::first'));
    expect(first?.inputs?.special).toBe(false);
    expect(run.out).toContain('- [remediate]  no-special-strings  (random:index:RandomString: first) [diff: ~special]');
    expect(run.out).toContain('[advisory]  max-length  (random:index:RandomString: first)');
    expect(eventsOf(run, 'policyRemediationEvent')).toContainEqual(
      expect.objectContaining({ resourceUrn: 'urn:pulumi:dev::policy-tests::random:index/randomString:RandomString::first', policyName: 'no-special-strings', before: expect.objectContaining({ special: true }), after: expect.objectContaining({ special: false }) }),
    );
  }, 120_000);

  it('without --show-policy-remediations a count per policy; a mandatory violation stops the update before the next resource', async () => {
    const run = await stack.run('destroy', 2).then(() => upWithPack(stack, 2, { skipPreview: true }));

    expect(run.code).toBe(1);
    expect(run.out).toContain('- [remediate]  no-special-strings  (1 resource)');
    expect(run.out).toContain('[mandatory]  max-length  (random:index:RandomString: first)');
    expect(run.created).toEqual([]);
  }, 120_000);
});
