import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDeployment, type ResourceState } from '../../cli/engine/state/deployment.js';
import type { StackConfig } from '../../cli/engine/config/program-config.js';
import { worldIds } from '../support/testprov-world.js';
import { FIXTURES, TestStack, type RunRecord } from './engine-harness.js';

const PROGRAM = join(FIXTURES, 'programs/features');

function cfg(step: number, ref?: string): StackConfig {
  return {
    'features:step': { value: String(step), secret: false },
    ...(ref ? { 'features:ref': { value: ref, secret: false } } : {}),
  };
}

function resources(run: RunRecord): ResourceState[] {
  return (run.state?.deployment as { resources?: ResourceState[] }).resources ?? [];
}

function byName(run: RunRecord, name: string): ResourceState | undefined {
  return resources(run).find((r) => r.urn.endsWith(`::${name}`));
}

function ops(run: RunRecord, name: string): string[] {
  return run.steps.filter((s) => s.phase === 'done' && s.urn.endsWith(`::${name}`)).map((s) => s.op);
}

function calls(stack: TestStack): { op: string; urn: string }[] {
  if (!existsSync(stack.log)) return [];
  return readFileSync(stack.log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op: string; urn: string });
}

describe('engine features: resource options, reads, invokes, providers, stack references', () => {
  const source = new TestStack(PROGRAM, 'features', 'source');
  const stack = new TestStack(PROGRAM, 'features', 'dev');
  let first: RunRecord;
  let second: RunRecord;
  let callsBeforeSecond = 0;

  beforeAll(async () => {
    await source.run('update', cfg(1));
    const readStack = async (name: string) =>
      name === 'organization/features/source' ? loadDeployment(source.state, source.crypter) : undefined;
    first = await stack.run('update', cfg(1, 'organization/features/source'), { readStack });
    callsBeforeSecond = calls(stack).length;
    second = await stack.run('update', cfg(2, 'organization/features/source'), { readStack });
  }, 120_000);

  it('runs both steps successfully', () => {
    expect(first.result.errors).toEqual([]);
    expect(second.result.errors).toEqual([]);
  });

  it('follows an alias instead of replacing the renamed resource', () => {
    expect(ops(second, 'new-name')).toEqual(['same']);
    expect(byName(second, 'old-name')).toBeUndefined();
    expect(byName(second, 'new-name')?.id).toBe(byName(first, 'old-name')?.id);
  });

  it('ignores changes on ignoreChanges paths and replaces on replaceOnChanges paths', () => {
    expect(ops(second, 'ignored')).toEqual(['same']);
    expect(byName(second, 'ignored')?.inputs?.value).toBe(1);
    expect(ops(second, 'roc')).toContain('replace');
    expect(byName(second, 'roc')?.id).not.toBe(byName(first, 'roc')?.id);
  });

  it('stores additionalSecretOutputs encrypted (inputs stay plain, as in Pulumi) while the program still sees the value', () => {
    const aso = byName(first, 'aso');
    expect(aso?.outputs?.value).toHaveProperty('ciphertext');
    expect(aso?.inputs?.value).toBe('visible-only-in-memory');
    const stackOutputs = resources(first).find((r) => r.type === 'pulumi:pulumi:Stack')?.outputs;
    expect(stackOutputs?.asoValue).toHaveProperty('ciphertext');
    expect(first.result.outputs.asoValue).toMatchObject({ value: 'visible-only-in-memory' });
  });

  it('drops retainOnDelete resources from state without deleting them, and skips deletes covered by deletedWith', () => {
    const secondCalls = calls(stack).slice(callsBeforeSecond);
    const deletes = secondCalls.filter((c) => c.op === 'delete').map((c) => c.urn.split('::').pop());
    expect(byName(second, 'retained')).toBeUndefined();
    expect(deletes).not.toContain('retained');
    expect(worldIds(stack.world).some((id) => id.startsWith('retained-'))).toBe(true);
    expect(byName(second, 'owned')).toBeUndefined();
    expect(byName(second, 'owner')).toBeUndefined();
    expect(deletes).toContain('owner');
    expect(deletes).not.toContain('owned');
  });

  it('deletes dependents that must be replaced before a delete-before-replace, and recreates them after', () => {
    const secondCalls = calls(stack).slice(callsBeforeSecond).filter((c) => c.op === 'create' || c.op === 'delete');
    const order = secondCalls.filter((c) => /::dbr-/.test(c.urn)).map((c) => `${c.op} ${c.urn.split('::').pop()}`);
    expect(order).toEqual(['delete dbr-child', 'delete dbr-parent', 'create dbr-parent', 'create dbr-child']);
    expect(ops(second, 'dbr-bystander')).toEqual(['update']);
    expect(byName(second, 'dbr-child')?.inputs?.r_parent).toBe(byName(second, 'dbr-parent')?.id);
  });

  it('records custom timeouts in seconds', () => {
    expect(byName(first, 'timed')?.customTimeouts).toEqual({ create: 120, delete: 30 });
  });

  it('reads an existing resource as external', () => {
    const existing = byName(first, 'existing');
    expect(existing?.external).toBe(true);
    expect(existing?.id).toBe(byName(first, 'timed')?.id);
    expect(first.result.outputs.existingValue).toBe(1);
  });

  it('routes resources to an explicit provider and invokes to the default provider', () => {
    const explicit = byName(first, 'explicit');
    expect(explicit?.type).toBe('pulumi:providers:testprov');
    expect(byName(first, 'via-explicit')?.provider).toBe(`${explicit?.urn}::${explicit?.id}`);
    expect(first.result.outputs.invoked).toBe('world');
  });

  it('reads outputs of another local stack through a StackReference', () => {
    expect(first.result.outputs.fromRef).toBe('world');
    const ref = resources(first).find((r) => r.type === 'pulumi:pulumi:StackReference');
    expect(ref?.external).toBe(true);
    expect(ref?.provider).toMatch(/::pulumi:providers:pulumi::default::/);
  });
});
