/**
 * Update plans, from Pulumi's pkg/engine/lifecycletest/update_plan_test.go and the checks it exercises
 * (`validateSteps`, `checkGoal`/`checkDiff` in pkg/resource/deploy/plan.go, the end-of-run check in
 * deployment_executor.go): a preview records a plan; an update constrained to it fails at the first operation outside
 * it, with Pulumi's message, and does not perform that operation.
 */
import { describe, expect, it } from 'vitest';
import { writePlanFile, readPlanFile, planManifest } from '../../../cli/engine/plans/plan-file.js';
import type { DeploymentPlan } from '../../../cli/engine/plans/plan-types.js';
import { conformanceStack, errorsOf, opsOf, programConfig, type ConformanceStack, type ProgramSpec } from './conformance-harness.js';

/** Runs a preview of `spec` recording its plan, and returns the plan as read back from its file. */
async function savePlan(stack: ConformanceStack, spec: ProgramSpec): Promise<{ plan: DeploymentPlan; file: string }> {
  const run = await stack.deploy('preview', spec, { recordPlan: true });
  expect(run.result.ok, errorsOf(run).join('\n')).toBe(true);
  const plan: DeploymentPlan = { manifest: planManifest(new Date()), resourcePlans: run.result.resourcePlans! };
  const file = await writePlanFile(plan, programConfig(spec), stack.crypter);
  return { plan: await readPlanFile(file, stack.crypter), file };
}

describe('conformance: update plans', () => {
  // TestPlannedUpdate, second half: the program the plan was made from applies cleanly
  it('an unchanged program applies cleanly under its plan', async () => {
    const stack = conformanceStack();
    const spec: ProgramSpec = { resources: [{ name: 'resA', props: { foo: 'bar' } }, { name: 'resB', refs: { peer: 'resA' } }] };
    const { plan } = await savePlan(stack, spec);

    const update = await stack.deploy('update', spec, { plan });

    expect(errorsOf(update)).toEqual([]);
    expect(update.result.ok).toBe(true);
    expect(opsOf(update, 'resA')).toEqual(['create']);
    expect(opsOf(update, 'resB')).toEqual(['create']);
  });

  // TestPlannedUpdate, first half: properties outside the plan's diff
  it('a property changed outside the plan fails with Pulumi\'s message and the resource is not created', async () => {
    const stack = conformanceStack();
    const { plan } = await savePlan(stack, { resources: [{ name: 'resA', props: { foo: 'bar', baz: 1 } }] });
    stack.calls();

    const update = await stack.deploy('update', { resources: [{ name: 'resA', props: { qux: 'alpha' } }] }, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain(`resource ${stack.urn('resA')} violates plan: properties changed: +-baz[{1}], +-foo[{bar}], =+qux[{alpha}]`);
    expect(stack.calls().filter((c) => c.op === 'create')).toEqual([]);
    expect(stack.resource('resA')).toBeUndefined();
  });

  // TestUnplannedCreate
  it('a create the plan does not list fails and nothing is created', async () => {
    const stack = conformanceStack();
    const { plan } = await savePlan(stack, { resources: [] });
    stack.calls();

    const update = await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'bar' } }] }, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain('create is not allowed by the plan: no steps were expected for this resource');
    expect(stack.calls().filter((c) => c.op === 'create')).toEqual([]);
    expect(stack.resource('resA')).toBeUndefined();
  });

  // TestUnplannedDelete
  it('a delete where the plan expected a same fails and nothing is deleted', async () => {
    const stack = conformanceStack();
    const both: ProgramSpec = { resources: [{ name: 'resA', props: { foo: 'bar' } }, { name: 'resB', props: { foo: 'bar' } }] };
    await stack.deploy('update', both);
    const { plan } = await savePlan(stack, both);
    stack.calls();

    const update = await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'bar' } }] }, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain('delete is not allowed by the plan: this resource is constrained to same');
    expect(stack.calls().filter((c) => c.op === 'delete')).toEqual([]);
    expect(stack.resource('resB')).toBeDefined();
  });

  // TestExpectedDelete
  it('a resource the plan expected to be deleted but the program still declares violates the plan', async () => {
    const stack = conformanceStack();
    const both: ProgramSpec = { resources: [{ name: 'resA', props: { foo: 'bar' } }, { name: 'resB', props: { foo: 'bar' } }] };
    await stack.deploy('update', both);
    const { plan } = await savePlan(stack, { resources: [{ name: 'resA', props: { foo: 'bar' } }] });

    const update = await stack.deploy('update', both, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain(`resource ${stack.urn('resB')} violates plan: resource unexpectedly not deleted`);
    expect(stack.resource('resB')).toBeDefined();
  });

  // TestExpectedCreate
  it('a planned create the program no longer makes fails the run at its end', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'bar' } }] });
    const { plan } = await savePlan(stack, { resources: [{ name: 'resA', props: { foo: 'bar' } }, { name: 'resB', props: { foo: 'bar' } }] });

    const update = await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'bar' } }] }, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain(`expected resource operations for ${stack.urn('resB')} but none were seen`);
  });

  // an update where the plan allows only a same: the provider is never asked to update
  it('an update where the plan expected a same fails with the plan\'s constraint and is not performed', async () => {
    const stack = conformanceStack();
    await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'bar' } }] });
    const { plan } = await savePlan(stack, { resources: [{ name: 'resA', props: { foo: 'bar' } }] });
    stack.calls();

    const update = await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'baz' } }] }, { plan });

    expect(update.result.ok).toBe(false);
    expect(errorsOf(update).join('\n')).toContain(`resource ${stack.urn('resA')} violates plan: properties changed: =~foo[{baz}]`);
    expect(stack.calls().filter((c) => c.op === 'update')).toEqual([]);
    expect(stack.resource('resA')?.inputs).toMatchObject({ foo: 'bar' });
  });

  // SerializePlan: secrets go through the stack's encrypter
  it('secrets in the plan file are ciphertext under the stack\'s key, and read back as secrets', async () => {
    const stack = conformanceStack();
    const spec: ProgramSpec = { resources: [{ name: 'resA', props: { password: 'hunter2-plan' }, secrets: ['password'] }] };

    const { plan, file } = await savePlan(stack, spec);
    const update = await stack.deploy('update', spec, { plan });

    // the conformance program itself travels in (plain) config, so only the resource plans are searched
    const resourcePlans = JSON.stringify((JSON.parse(file) as { resourcePlans: unknown }).resourcePlans);
    expect(resourcePlans).not.toContain('hunter2-plan');
    expect(resourcePlans).toContain('"ciphertext"');
    expect(update.result.ok).toBe(true);
  });

  // a plan file as `pulumi preview --save-plan` writes it (apitype.DeploymentPlanV1, Go's encoder: every goal field,
  // empty diffs as `{}`, `state` null for a component, the seed in base64), written by hand from the schema
  it('a plan file in Pulumi\'s format is accepted: its program applies, a change outside it is refused', async () => {
    const stack = conformanceStack();
    const stackUrn = 'urn:pulumi:dev::conformance::pulumi:pulumi:Stack::conformance-dev';
    const providerUrn = 'urn:pulumi:dev::conformance::pulumi:providers:testprov::default';
    const [secretText] = await stack.crypter.encrypt(['"s3cret"']);
    const goal = (type: string, name: string, custom: boolean, extra: Record<string, unknown>) => ({
      type, name, custom, inputDiff: {}, outputDiff: {}, protect: false, customTimeouts: {}, ...extra,
    });
    const pulumiPlan = {
      manifest: { time: '2026-11-28T04:00:00.000000000Z', magic: 'e1b9b2a4c1d0', version: 'v3.150.0' },
      config: { 'conformance:program': 'x' },
      resourcePlans: {
        [stackUrn]: { goal: goal('pulumi:pulumi:Stack', 'conformance-dev', false, {}), steps: ['create'], state: null },
        [providerUrn]: { goal: goal('pulumi:providers:testprov', 'default', true, {}), steps: ['create'], state: null, seed: 'AAAA' },
        [stack.urn('resA')]: {
          goal: goal('testprov:index:Thing', 'resA', true, {
            inputDiff: { adds: { foo: 'bar', token: { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', ciphertext: secretText } } },
            parent: stackUrn,
            provider: `${providerUrn}::04da6b54-80e4-46f7-96ec-b56ff0331ba9`,
          }),
          steps: ['create'],
          state: { foo: 'bar' },
          seed: Buffer.alloc(32, 7).toString('base64'),
        },
      },
    };
    const plan = await readPlanFile(JSON.stringify(pulumiPlan, null, 4), stack.crypter);
    const planned: ProgramSpec = { resources: [{ name: 'resA', props: { foo: 'bar', token: 's3cret' }, secrets: ['token'] }] };

    const refused = await stack.deploy('update', { resources: [{ name: 'resA', props: { foo: 'baz', token: 's3cret' }, secrets: ['token'] }] }, { plan });
    const applied = await stack.deploy('update', planned, { plan: await readPlanFile(JSON.stringify(pulumiPlan), stack.crypter) });

    expect(errorsOf(refused).join('\n')).toContain(`resource ${stack.urn('resA')} violates plan: properties changed: ++foo[{bar}!={baz}]`);
    expect(errorsOf(applied)).toEqual([]);
    expect(opsOf(applied, 'resA')).toEqual(['create']);
  });
});
