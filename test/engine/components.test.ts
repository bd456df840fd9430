/**
 * Pulumi's integration programs for multi-language components and their methods (test/fixtures/components), run
 * by the engine with our Node `testcomponent` providers, each checked as its Go test checks it
 * (tests/integration/integration_nodejs_test.go, integration_util_test.go in pulumi/pulumi). The programs whose Go
 * test reads stderr run through the CLI in test/cli/components.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeploymentKind } from '../../cli/engine/run-deployment.js';
import type { ResourceState } from '../../cli/engine/state/deployment.js';
import { FIXTURES, TestStack, type RunRecord } from './engine-harness.js';

const COMPONENTS = join(FIXTURES, 'components');

/** A stack of the program `<dir>/nodejs` (`up` runs an update unless told another kind), with `<component>/testcomponent` and the Node testprovider installed. */
function componentStack(dir: string, project: string, component = dir, env: NodeJS.ProcessEnv = {}): TestStack & { up: (kind?: DeploymentKind) => Promise<RunRecord> } {
  const stack = new TestStack(join(COMPONENTS, dir, 'nodejs'), project, 'dev', env);
  const plugins = [
    { name: 'testcomponent', path: join(COMPONENTS, component, 'testcomponent') },
    { name: 'testprovider', path: join(COMPONENTS, 'testprovider') },
  ];
  return Object.assign(stack, { up: (kind: DeploymentKind = 'update') => stack.run(kind, {}, { projectPlugins: plugins }) });
}

function resources(r: RunRecord): ResourceState[] {
  return ((r.state as { deployment?: { resources?: ResourceState[] } } | undefined)?.deployment?.resources ?? []).filter((x) => !x.delete);
}

function name(urn: string): string {
  return urn.slice(urn.lastIndexOf('::') + 2);
}

function expectOk(r: RunRecord): void {
  expect(r.result.errors, r.diags.map((d) => d.message).join('\n')).toEqual([]);
  expect(r.result.ok).toBe(true);
}

describe('remote components (Construct)', () => {
  it('construct_component_plain: a plain input reaches Construct as a number (9 resources)', async () => {
    const r = await componentStack('construct_component_plain', 'construct_component_plain_nodejs').up();
    expectOk(r);
    expect(resources(r)).toHaveLength(9);
    expect(resources(r).filter((x) => x.type === 'pulumi-nodejs:dynamic:Resource').map((x) => x.parent)).toEqual(
      Array(5).fill('urn:pulumi:dev::construct_component_plain_nodejs::testcomponent:index:Component::component'),
    );
  }, 60_000);

  it('construct_component_slow: a child that takes long to create is created inside Construct (5 resources)', async () => {
    // Pulumi's component waits 15 s; 3 s keeps the point (Construct outlasts the child's create) at a lower cost
    const r = await componentStack('construct_component_slow', 'construct_component_slow_nodejs', undefined, { CREATION_DELAY_MS: '3000' }).up();
    expectOk(r);
    expect(resources(r)).toHaveLength(5);
    expect(resources(r)[0]!.type).toBe('pulumi:pulumi:Stack');
    expect(resources(r)[0]!.parent).toBeUndefined();
    expect(resources(r).find((x) => name(x.urn) === 'child-a')?.id).toBe('0');
  }, 60_000);

  it('construct_component_unknown: a preview sends unknown inputs, so the component applies nothing', async () => {
    const r = await componentStack('construct_component_unknown', 'construct_component_unknown_nodejs').up('preview');
    expectOk(r);
    expect(r.output).not.toContain('should not run');
  }, 60_000);

  it('construct_component_output_values: nested plain values stay plain and a nested secret arrives as an output', async () => {
    const r = await componentStack('construct_component_output_values', 'construct_component_output_values_nodejs').up();
    expectOk(r);
  }, 60_000);

  it('construct_component_provider: the component reads the explicit provider of its package from `providers`', async () => {
    const r = await componentStack('construct_component_provider', 'construct_component_provider_nodejs').up();
    expectOk(r);
    expect(r.result.outputs.message).toBe('hello world');
  }, 60_000);

  it('construct_component_provider_explicit: an explicit provider builds components given it as `provider` and through a local parent', async () => {
    const r = await componentStack('construct_component_provider_explicit', 'construct_component_provider_nodejs').up();
    expectOk(r);
    expect(r.result.outputs).toMatchObject({ message: 'hello world', nestedMessage: 'hello world' });
  }, 60_000);

  it('construct_component_provider_propagation: `provider` and `providers` of another package reach the component’s children', async () => {
    const r = await componentStack('construct_component_provider_propagation', 'construct_component_provider_propagation_nodejs').up();
    expectOk(r);
    const providers = Object.fromEntries(
      resources(r)
        .filter((x) => x.type === 'testprovider:index:Random')
        .map((x) => [name(x.urn), name(x.provider!.slice(0, x.provider!.lastIndexOf('::')))]),
    );
    expect(providers).toEqual({ uses_default: 'default', uses_provider: 'explicit', uses_providers: 'explicit', uses_providers_map: 'explicit' });
  }, 60_000);
});

describe('component methods (Call)', () => {
  it('construct_component_methods: a method joins the component’s inputs with its argument', async () => {
    const r = await componentStack('construct_component_methods', 'construct_component_methods_nodejs').up();
    expectOk(r);
    expect(r.result.outputs.message).toBe('Hello World, Alice!');
  }, 60_000);

  it('construct_component_methods_provider: methods reach the component’s provider when it was given another package’s provider', async () => {
    const r = await componentStack('construct_component_methods_provider', 'construct_component_methods_provider_nodejs', 'construct_component_methods').up();
    expectOk(r);
    expect(r.result.outputs).toMatchObject({ message1: 'Hello World, Alice!', message2: 'Hi There, Bob!' });
  }, 60_000);

  it('construct_component_methods_resources: a method creates a resource under the component (6 resources, as Pulumi records them)', async () => {
    const program = componentStack('construct_component_methods_resources', 'construct_component_methods_resources_nodejs');
    const r = await program.up();
    expectOk(r);
    // Pulumi's Go test counts 6: rehydrating `__self__` in the component's provider invokes `pulumi:pulumi:getResource`,
    // which goes through the default provider of the `pulumi` package (source_eval.go Invoke), so it is registered
    const prefix = 'urn:pulumi:dev::construct_component_methods_resources_nodejs::';
    const component = `${prefix}testcomponent:index:Component::component`;
    const stack = `${prefix}pulumi:pulumi:Stack::construct_component_methods_resources_nodejs-dev`;
    expect(Object.fromEntries(resources(r).map((x) => [x.urn, x.parent ?? '']))).toEqual({
      [stack]: '',
      [`${prefix}pulumi:providers:testcomponent::default`]: '',
      [component]: stack,
      [`${prefix}pulumi:providers:pulumi::default`]: '',
      [`${prefix}pulumi:providers:testprovider::default`]: '',
      [`${prefix}testcomponent:index:Component$testprovider:index:Random::myrandom`]: component,
    });
    expect(resources(r)).toHaveLength(6);
    const random = resources(r).find((x) => name(x.urn) === 'myrandom');
    expect(random?.inputs?.length).toBe(10);
    expect(random?.outputs?.result).toHaveLength(10);
    expect(r.result.outputs.result).toBe(random?.outputs?.result);

    // the rest of Pulumi's Quick lifecycle: a refresh that finds no changes, then a destroy that leaves nothing
    const refresh = await program.up('refresh');
    expectOk(refresh);
    expect(Object.keys(refresh.result.summary).filter((op) => op !== 'same')).toEqual([]);
    const destroy = await program.up('destroy');
    expectOk(destroy);
    expect(resources(destroy)).toEqual([]);
  }, 60_000);

  it('construct_component_methods_unknown: a preview sends the unknown argument, so neither side applies', async () => {
    const r = await componentStack('construct_component_methods_unknown', 'construct_component_methods_unknown_nodejs').up('preview');
    expectOk(r);
    expect(r.output).not.toContain('should not run');
  }, 60_000);
});
