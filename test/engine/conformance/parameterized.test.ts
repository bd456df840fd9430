/**
 * Parameterized packages and the monitor's self-description, from Pulumi's pkg/engine/lifecycletest/
 * parameterized_test.go (`TestReplacementParameterizedProvider`, `...Config`) and source_eval.go (`RegisterPackage`,
 * `GetDeploymentInfo`, `supportsFeatureID`), with the registry's `__internal` keys (providers/registry.go). The
 * provider (fixtures/parameterized/provider.cjs) is a `pulumi.provider.main` plugin installed at test time into a
 * fresh plugin cache as `paramprov` v1.0.0; the program registers packages as deploytest and a generated SDK do.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StackConfig } from '../../../cli/engine/config/program-config.js';
import { pulumiHomeWith, TestStack, type RunRecord } from '../engine-harness.js';
import { errorsOf, stateResources } from './conformance-harness.js';

const FIXTURE = join(import.meta.dirname, 'fixtures/parameterized');
const PREFIX = 'urn:pulumi:dev::param::';

type Call = { pid: number; param: string; op: string; urn?: string; name?: string; version?: string; value?: string; token?: string };

class ParamStack extends TestStack {
  constructor() {
    // a plugin cache holding the provider as `paramprov` v1.0.0 and nothing else (`pkgExt` has no plugin of its own)
    super(join(FIXTURE, 'program'), 'param', 'dev', { PULUMI_HOME: pulumiHomeWith('paramprov', '1.0.0', join(FIXTURE, 'provider.cjs')), PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true' });
  }

  deploy(kind: Parameters<TestStack['run']>[0], scenario: string, config: StackConfig = {}, parallel?: number): Promise<RunRecord> {
    return this.run(kind, { 'param:scenario': { value: scenario, secret: false }, ...config }, { projectPlugins: [], ...(parallel ? { parallel } : {}) });
  }

  /** The provider's calls since the last call of this method. */
  calls(): Call[] {
    const file = join(this.world, 'paramprov.jsonl');
    if (!existsSync(file)) return [];
    const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
    writeFileSync(file, '');
    return lines.map((l) => JSON.parse(l) as Call);
  }
}

function expectOk(r: RunRecord): void {
  expect(r.result.errors, r.diags.map((d) => d.message).join('\n')).toEqual([]);
}

const typeOf = (urn: string | undefined) => urn?.split('::')[2];

describe('conformance: parameterized packages (RegisterPackage and packageRef)', () => {
  // TestReplacementParameterizedProvider and TestReplacementParameterizedProviderConfig
  it('up registers the sub-package, runs its resources, reads and invokes on the parameterized provider and records the parameterization; refresh and destroy reuse it from the state', async () => {
    const stack = new ParamStack();
    const config = { 'paramprov:name': { value: 'testingBase', secret: false }, 'pkgExt:name': { value: 'testingExt', secret: false } };

    const up = await stack.deploy('update', 'up', config);
    const upCalls = stack.calls();
    const refreshed = await stack.deploy('refresh', 'up', config);
    const refreshCalls = stack.calls();
    const destroyed = await stack.deploy('destroy', 'up', config);
    const destroyCalls = stack.calls();

    expectOk(up);
    const stored = stateResources(up.state);
    const byUrn = (name: string) => stored.find((r) => r.urn === `${PREFIX}${name}`);
    expect(stored.map((r) => r.urn.slice(PREFIX.length)).sort()).toEqual(
      [
        'pulumi:pulumi:Stack::param-dev',
        'pulumi:providers:paramprov::default_1_0_0',
        'paramprov:m:typA::resA',
        'pulumi:providers:pkgExt::default_0_5_0',
        'pkgExt:m:typA::resB',
        'pkgExt:m:typA::resC',
        'pulumi:providers:pkgExt::provider',
        'pkgExt:m:typA::resD',
      ].sort(),
    );
    const internal = { name: 'paramprov', version: '1.0.0', parameterization: 'cmVwbGFjZW1lbnQ=' };
    expect(byUrn('pulumi:providers:pkgExt::default_0_5_0')?.inputs).toEqual({ version: '0.5.0', name: 'testingExt', __internal: internal });
    expect(byUrn('pulumi:providers:pkgExt::provider')?.inputs).toEqual({ version: '0.5.0', __internal: internal });
    expect(byUrn('pulumi:providers:paramprov::default_1_0_0')?.inputs).toEqual({ version: '1.0.0', name: 'testingBase', __internal: {} });
    const extDefault = `${byUrn('pulumi:providers:pkgExt::default_0_5_0')!.urn}::${byUrn('pulumi:providers:pkgExt::default_0_5_0')!.id}`;
    expect(byUrn('pkgExt:m:typA::resB')?.provider).toBe(extDefault);
    expect(byUrn('pkgExt:m:typA::resC')).toMatchObject({ external: true, provider: extDefault, outputs: { readBy: 'replacement' } });
    expect(byUrn('paramprov:m:typA::resA')?.provider).toMatch(/::pulumi:providers:paramprov::default_1_0_0::/);
    expect(up.result.outputs).toMatchObject({ invoked: 'in replacement', sameRef: true });
    // the plugin was loaded three times (base default, sub-package default, explicit) and parameterized twice, each
    // time before the sub-package's resources ran on it
    expect(new Set(upCalls.map((c) => c.pid)).size).toBe(3);
    expect(upCalls.filter((c) => c.op === 'parameterize').map((c) => [c.name, c.version, c.value])).toEqual([
      ['pkgExt', '0.5.0', 'replacement'],
      ['pkgExt', '0.5.0', 'replacement'],
    ]);
    for (const c of upCalls.filter((c) => c.op !== 'parameterize')) {
      expect(c.param, `${c.op} ${c.urn ?? c.token}`).toBe(typeOf(c.urn) === 'paramprov:m:typA' ? '' : 'replacement');
    }

    expectOk(refreshed);
    expect(refreshCalls.filter((c) => c.op === 'read').map((c) => `${typeOf(c.urn)} ${c.param}`).sort()).toEqual(
      ['paramprov:m:typA ', 'pkgExt:m:typA replacement', 'pkgExt:m:typA replacement', 'pkgExt:m:typA replacement'].sort(),
    );

    expectOk(destroyed);
    expect(stateResources(destroyed.state)).toEqual([]);
    expect(destroyCalls.filter((c) => c.op === 'delete').map((c) => `${typeOf(c.urn)} ${c.param}`).sort()).toEqual(
      ['paramprov:m:typA ', 'pkgExt:m:typA replacement', 'pkgExt:m:typA replacement'].sort(),
    );
  }, 120_000);

  it('an update whose program no longer registers the packages deletes their resources through the providers the state records; __internal alone never changes a provider', async () => {
    const stack = new ParamStack();
    await stack.deploy('update', 'up');
    // a state written before versioned providers recorded `__internal`
    const base = stateResources(stack.state).find((r) => r.urn === `${PREFIX}pulumi:providers:paramprov::default_1_0_0`)!;
    delete base.inputs!.__internal;
    stack.calls();

    const again = await stack.deploy('update', 'up');
    const emptied = await stack.deploy('update', 'none');
    const deletes = stack.calls().filter((c) => c.op === 'delete');

    expectOk(again);
    expect(again.steps.filter((s) => s.phase === 'done' && s.op !== 'same' && s.op !== 'read').map((s) => s.urn)).toEqual([]);
    expect(stateResources(again.state).find((r) => r.urn === base.urn)?.inputs).toEqual({ version: '1.0.0', __internal: {} });
    expectOk(emptied);
    expect(stateResources(emptied.state).map((r) => r.type)).toEqual(['pulumi:pulumi:Stack']);
    expect(deletes.map((c) => `${typeOf(c.urn)} ${c.param}`).sort()).toEqual(['paramprov:m:typA ', 'pkgExt:m:typA replacement', 'pkgExt:m:typA replacement'].sort());
  }, 120_000);

  // TestReplacementParameterizedProvider (mlcB, call) and TestReplacementParameterizedProviderImport (resB)
  it('a remote component, a method call and an import that carry the package reference run on the parameterized provider', async () => {
    const stack = new ParamStack();

    const run = await stack.deploy('update', 'more');
    const calls = stack.calls().filter((c) => c.op !== 'parameterize');

    expectOk(run);
    expect(run.result.outputs).toMatchObject({ constructed: `${PREFIX}pkgExt:m:typA::mlcB`, called: 'in replacement' });
    expect(calls.map((c) => `${c.op} ${c.param}`).sort()).toEqual(['call replacement', 'construct replacement', 'read replacement']);
    const stored = stateResources(run.state);
    expect(stored.find((r) => r.urn === `${PREFIX}pkgExt:m:typA::mlcB`)).toMatchObject({ custom: false, outputs: { output: 'output replacement' } });
    expect(stored.find((r) => r.urn === `${PREFIX}pkgExt:m:typA::resI`)).toMatchObject({ id: 'idI', inputs: { input: 'i' }, outputs: { readBy: 'replacement' } });
  }, 60_000);

  // source_eval.go RegisterResource: a provider resource's `version` option is SetProviderVersion'd into its inputs
  it('an explicit provider records its version option as Pulumi does, with __internal beside a config key `name`, which is never taken for the plugin', async () => {
    const stack = new ParamStack();

    const run = await stack.deploy('update', 'pinned');
    const pinned = stateResources(run.state).find((r) => r.urn === `${PREFIX}pulumi:providers:paramprov::pinned`);
    const recorded = pinned?.inputs;
    // as stackyard recorded it before: no version, no `__internal`; the config key `name` is not the plugin's name
    pinned!.inputs = { name: 'configured' };
    const destroyed = await stack.deploy('destroy', 'pinned');

    expectOk(run);
    expect(recorded).toEqual({ name: 'configured', version: '1.0.0', __internal: {} });
    expectOk(destroyed);
    expect(stateResources(destroyed.state)).toEqual([]);
  }, 60_000);

  // loadParameterizedProvider: the plugin must answer Parameterize with the package asked for
  it('fails the registration when the plugin answers Parameterize with another package name', async () => {
    const stack = new ParamStack();

    const run = await stack.deploy('update', 'wrongName');

    expect(run.result.ok).toBe(false);
    expect(errorsOf(run).join('\n') + run.result.errors.join('\n')).toContain('parameterize response name "otherName" does not match expected package "wrongName"');
    expect(stateResources(run.state).some((r) => r.type === 'wrongName:m:typA')).toBe(false);
  }, 60_000);
});

describe('conformance: GetDeploymentInfo and SupportsFeature', () => {
  it('GetDeploymentInfo describes the run as Pulumi does (project, stack, organization, config, secret keys, dry run, parallel, features)', async () => {
    const stack = new ParamStack();
    const config = { 'param:token': { value: 'hush', secret: true } };

    const preview = await stack.deploy('preview', 'info', config, 3);
    const update = await stack.deploy('update', 'info', config, 5);

    expectOk(preview);
    expectOk(update);
    const info = (r: RunRecord) => r.result.outputs.info as Record<string, unknown>;
    expect(info(preview)).toMatchObject({ project: 'param', stack: 'dev', organization: 'organization', dryrun: true, parallel: 3 });
    expect(info(update)).toMatchObject({ project: 'param', stack: 'dev', organization: 'organization', dryrun: false, parallel: 5 });
    expect(Object.fromEntries(info(update).configMap as [string, string][])).toEqual({ 'param:scenario': 'info', 'param:token': 'hush' });
    expect(info(update).configsecretkeysList).toEqual(['param:token']);
  }, 60_000);

  it('SupportsFeature answers true only for what the engine implements, and DeploymentInfo lists the same features', async () => {
    const stack = new ParamStack();

    const run = await stack.deploy('update', 'info');

    expectOk(run);
    const features = run.result.outputs.features as Record<string, boolean>;
    expect(features).toEqual({
      secrets: true,
      resourceReferences: true,
      outputValues: true,
      aliasSpecs: true,
      deletedWith: true,
      transforms: true,
      parameterization: true,
      replaceWith: false,
      replacementTrigger: false,
      noSuchFeature: false,
    });
    // ResourceMonitorFeature: SECRETS 0, RESOURCE_REFERENCES 1, OUTPUT_VALUES 2, ALIAS_SPECS 3, DELETED_WITH 5,
    // TRANSFORMS 7, PARAMETERIZATION 9; never REPLACEMENT_TRIGGER 4 nor REPLACE_WITH 6
    const listed = (run.result.outputs.info as { supportedfeaturesList: number[] }).supportedfeaturesList;
    expect(listed).toEqual(expect.arrayContaining([0, 1, 2, 3, 5, 7, 9]));
    expect(listed).not.toContain(4);
    expect(listed).not.toContain(6);
  }, 60_000);
});
