/**
 * `pulumi:disable-default-providers`, from Pulumi's default_providers.go (`shouldDenyRequest`) and the lifecycle test
 * TestMultipleResourceDenyDefaultProviderLifecycle: a listed package (or `*`) gets no default provider, so a resource
 * without an explicit one fails with Pulumi's message and nothing is created; an explicit provider still works.
 */
import { describe, expect, it } from 'vitest';
import { conformanceStack, errorsOf, programConfig, type ProgramSpec } from './conformance-harness.js';

const disabling = (spec: ProgramSpec, value: string) => ({ ...programConfig(spec), 'pulumi:disable-default-providers': { value, secret: false } });
const bare: ProgramSpec = { resources: [{ name: 'resA', props: { r_foo: 'bar' } }] };

describe('conformance: pulumi:disable-default-providers', () => {
  it('a listed package gets no default provider: the resource fails with Pulumi\'s message and nothing is created', async () => {
    // Arrange
    const stack = conformanceStack();

    // Act
    const run = await stack.run('update', disabling(bare, '["testprov"]'));

    // Assert
    expect(errorsOf(run).join('\n')).toContain(`Default provider for 'testprov' disabled. '${stack.urn('resA')}' must use an explicit provider.`);
    expect(stack.calls()).toEqual([]);
    expect(stack.resources().filter((r) => r.type.startsWith('pulumi:providers:testprov'))).toEqual([]);
  });

  it('* disables every package\'s default provider, and an explicit provider still serves the resource', async () => {
    // Arrange
    const stack = conformanceStack();
    const explicit: ProgramSpec = { resources: [{ name: 'prov', kind: 'provider' }, { name: 'resA', props: { r_foo: 'bar' }, provider: 'prov' }] };

    // Act
    const denied = await stack.run('update', disabling(bare, '["*"]'));
    const allowed = await stack.run('update', disabling(explicit, '["*"]'));

    // Assert
    expect(errorsOf(denied).join('\n')).toContain("Default provider for 'testprov' disabled.");
    expect(allowed.result.errors).toEqual([]);
    expect(stack.resource('resA')?.provider).toMatch(/::pulumi:providers:testprov::prov::/);
  });

  it('other packages, an empty value and a malformed list are read as Pulumi reads them', async () => {
    // Arrange
    const stack = conformanceStack();

    // Act
    const other = await stack.run('update', disabling(bare, '["aws"]'));
    const empty = await stack.run('update', disabling(bare, ''));
    const malformed = await stack.run('update', disabling({ resources: [{ name: 'resB', props: { r_foo: 'x' } }] }, '["aws", 2]'));

    // Assert
    expect(other.result.errors).toEqual([]);
    expect(empty.result.errors).toEqual([]);
    expect(errorsOf(malformed).join('\n')).toContain('pulumi:disable-default-providers[1] must be a string');
    expect(stack.resource('resB')).toBeUndefined();
  });
});
