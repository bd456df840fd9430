/**
 * Multi-language components and their methods, from Pulumi's pkg/engine/lifecycletest/components_test.go and the
 * engine code it exercises (`resmon.RegisterResource`'s remote branch and `resmon.Call` in source_eval.go, the
 * provider plugin's Construct and Call in provider_plugin.go). The program (test/fixtures/components/remotepkg/program)
 * sends raw monitor requests as deploytest's monitor does; the provider (remotepkg) speaks the raw provider protocol
 * and records what Construct and Call receive.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNKNOWN } from '../../../cli/engine/resource/properties.js';
import { FIXTURES, TestStack, type RunRecord } from '../engine-harness.js';
import { stateResources } from './conformance-harness.js';

const REMOTEPKG = join(FIXTURES, 'components/remotepkg');
const SIG = '4dabf18193072939515e22adb298388d';
const secret = (value: unknown) => ({ [SIG]: '1b47061264138c4ac30d75fd1eb44270', value });
const COMPONENT_URN = 'urn:pulumi:dev::remote::remotepkg:index:Component::resA';
const CHILD_URN = 'urn:pulumi:dev::remote::remotepkg:index:Component$remotepkg:index:Child::resA-a';
const LOCAL_URN = 'urn:pulumi:dev::remote::remotepkg:index:Local::resC';

type Entry = { op: string; scenario: string } & Record<string, unknown>;

class RemoteStack extends TestStack {
  constructor() {
    super(join(REMOTEPKG, 'program'), 'remote');
  }

  deploy(kind: 'update' | 'preview' | 'destroy', scenario: string): Promise<RunRecord> {
    return this.run(kind, { 'remote:scenario': { value: scenario, secret: false } }, { projectPlugins: [{ name: 'remotepkg', path: REMOTEPKG }] });
  }

  /** What the program and the provider recorded since the last call, by op. */
  entries(): Record<string, Entry> {
    const file = join(this.world, 'remote.jsonl');
    if (!existsSync(file)) return {};
    const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
    writeFileSync(file, '');
    return Object.fromEntries(lines.map((l) => JSON.parse(l) as Entry).map((e) => [e.op, e]));
  }
}

function expectOk(r: RunRecord): void {
  expect(r.result.errors, r.diags.map((d) => d.message).join('\n')).toEqual([]);
}

describe('conformance: remote components (Construct) and methods (Call)', () => {
  // TestSingleComponentDefaultProviderLifecycle
  it('a remote component is built by its default provider, answers its outputs, stays the same on the next update and is destroyed', async () => {
    const stack = new RemoteStack();

    const created = await stack.deploy('update', 'lifecycle');
    const first = stack.entries();
    const same = await stack.deploy('update', 'lifecycle');
    const destroyed = await stack.deploy('destroy', 'lifecycle');

    expectOk(created);
    expect(first.registered).toMatchObject({ urn: COMPONENT_URN, object: { foo: 'bar' } });
    expect(first.construct).toMatchObject({ type: 'remotepkg:index:Component', name: 'resA', parent: '', dryRun: false, project: 'remote', stack: 'dev', organization: 'organization' });
    const stored = stateResources(created.state);
    expect(stored.find((r) => r.urn === COMPONENT_URN)).toMatchObject({ custom: false, outputs: { foo: 'bar' } });
    expect(stored.find((r) => r.urn === CHILD_URN)).toMatchObject({ custom: true, id: 'id-resA-a', parent: COMPONENT_URN });
    expect(stored.some((r) => r.urn.endsWith('::pulumi:providers:remotepkg::default'))).toBe(true);
    expectOk(same);
    expect(same.steps.filter((s) => s.phase === 'done' && s.op !== 'same')).toEqual([]);
    expectOk(destroyed);
    expect(stateResources(destroyed.state)).toEqual([]);
  }, 60_000);

  // TestConstructCallSecretsUnknowns
  it('Construct and Call get secret and unknown inputs as output values', async () => {
    const stack = new RemoteStack();

    const run = await stack.deploy('preview', 'secrets');
    const seen = stack.entries();

    expectOk(run);
    const expected = { foo: { [SIG]: 'd0e6a833031e9bbcd3f4e8bde6ca49a4', secret: true, value: 'foo' }, bar: { [SIG]: 'd0e6a833031e9bbcd3f4e8bde6ca49a4' } };
    expect(seen.construct?.inputs).toEqual(expected);
    expect(seen.construct?.dryRun).toBe(true);
    expect(seen.call?.args).toEqual(expected);
  }, 60_000);

  // TestConstructCallReturnDependencies, TestConstructCallReturnOutputs
  it.each(['deps', 'outputs'])('the dependencies Construct and Call return (%s) reach the program per output, with plain values', async (scenario) => {
    const stack = new RemoteStack();

    const run = await stack.deploy('preview', scenario);
    const seen = stack.entries();

    expectOk(run);
    expect(seen.registered?.object).toEqual({ foo: secret('foo'), bar: UNKNOWN });
    expect(seen.registered?.propertyDependencies).toEqual({ foo: [CHILD_URN], bar: [CHILD_URN] });
    expect(seen.call?.argDependencies).toEqual({ arg: [CHILD_URN] });
    expect(seen.called?.return).toEqual({ foo: secret('foo'), bar: UNKNOWN });
    expect(seen.called?.returnDependencies).toEqual({ foo: [CHILD_URN], bar: [CHILD_URN] });
  }, 60_000);

  // TestConstructCallSendDependencies, TestConstructCallDependencyDedeuplication
  it.each(['senddeps', 'dedup'])('Construct gets the dependencies of its output-value inputs once each (%s)', async (scenario) => {
    const stack = new RemoteStack();

    const run = await stack.deploy('preview', scenario);
    const seen = stack.entries();

    expectOk(run);
    expect(seen.construct?.inputDependencies).toEqual({ arg: [LOCAL_URN] });
    expect(seen.call?.argDependencies).toEqual({ arg: [CHILD_URN] });
  }, 60_000);

  // TestRemoteComponentTransforms
  it('a transform the program gives a remote component applies to what its provider registers under it', async () => {
    const stack = new RemoteStack();

    const run = await stack.deploy('update', 'transforms');

    expectOk(run);
    expect(stateResources(run.state).find((r) => r.urn === CHILD_URN)?.inputs).toEqual({ foo: 2 });
  }, 60_000);

  // provider_plugin.go Construct: a provider not fully configured registers the component itself to answer its URN
  it('in a preview, a component whose explicit provider has unknown configuration is registered without Construct', async () => {
    const stack = new RemoteStack();

    const run = await stack.deploy('preview', 'unconfigured');
    const seen = stack.entries();

    expectOk(run);
    expect(seen.construct).toBeUndefined();
    expect(seen.registered).toMatchObject({ urn: COMPONENT_URN, object: {} });
    expect(run.steps.filter((s) => s.phase === 'done').map((s) => `${s.op} ${s.type}`)).toContain('create remotepkg:index:Component');
    expect(run.steps.some((s) => s.urn === CHILD_URN)).toBe(false);
  }, 60_000);

  // resmon.resolveProvider: `providers` of a component parent give its custom children their provider (by package)
  it('a component’s providers option gives a custom child its provider, and a provider resource none', async () => {
    const stack = new RemoteStack();

    const run = await stack.deploy('update', 'providers');

    expectOk(run);
    const stored = stateResources(run.state);
    const explicit = stored.find((r) => r.urn.endsWith('::pulumi:providers:remotepkg::explicit'))!;
    expect(stored.find((r) => r.urn.endsWith('::child'))?.provider).toBe(`${explicit.urn}::${explicit.id}`);
    expect(stored.find((r) => r.urn.endsWith('::nested'))?.provider).toBeUndefined();
  }, 60_000);
});
