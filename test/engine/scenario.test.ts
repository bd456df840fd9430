import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceState } from '../../cli/engine/state/deployment.js';
import type { StackConfig } from '../../cli/engine/config/program-config.js';
import { changeInWorld, deleteFromWorld, worldIds, worldResource } from '../support/testprov-world.js';
import { FIXTURES, TestStack, type RunRecord } from './engine-harness.js';

const PROGRAM = join(FIXTURES, 'programs/scenario');
const PASSWORD = 'hunter2-plaintext';

function config(step: number): StackConfig {
  return {
    'scenario:step': { value: String(step), secret: false },
    'scenario:password': { value: PASSWORD, secret: true },
  };
}

function resources(run: RunRecord): ResourceState[] {
  return ((run.state?.deployment as { resources?: ResourceState[] }).resources ?? []);
}

function thing(run: RunRecord, name: string, opts: { deleted?: boolean } = {}): ResourceState | undefined {
  return resources(run).find((r) => r.urn.endsWith(`::testprov:index:Thing::${name}`) && !!r.delete === !!opts.deleted);
}

function ops(run: RunRecord, name: string): string[] {
  return run.steps.filter((s) => s.phase === 'done' && s.urn.endsWith(`::${name}`)).map((s) => s.op);
}

function providerCalls(stack: TestStack): { op: string; urn: string; id?: string }[] {
  if (!existsSync(stack.log)) return [];
  const lines = readFileSync(stack.log, 'utf8').trim().split('\n').filter(Boolean);
  writeFileSync(stack.log, '');
  return lines.map((l) => JSON.parse(l) as { op: string; urn: string; id?: string });
}

describe('engine scenario: create, change, replace, fail, recover, destroy', () => {
  const stack = new TestStack(PROGRAM, 'scenario');
  const runs: RunRecord[] = [];

  beforeAll(async () => {
    // one continuous history; each `it` asserts on its step
    for (const step of [1, 2, 3, 4, 5, 6]) runs.push(await stack.run('update', config(step)));
    runs.push(await stack.run('destroy', config(6)));
  }, 150_000);

  it('creates four resources, a component child and stack outputs', () => {
    const [r] = runs;
    expect(r.result.ok).toBe(true);
    for (const n of ['a', 'b', 'c', 'd']) expect(thing(r, n)?.id).toMatch(new RegExp(`^${n}-`));
    expect(thing(r, 'a')?.sourcePosition).toMatch(/^project:\/\/\/index\.js#\d+,\d+$/);
    const child = resources(r).find((x) => x.urn.endsWith('scenario:index:Group$testprov:index:Thing::g-child'));
    const group = resources(r).find((x) => x.type === 'scenario:index:Group');
    expect(child?.parent).toBe(group?.urn);
    expect(group?.outputs?.childId).toBe(child?.id);
    expect(r.result.outputs.aId).toBe(thing(r, 'a')?.id);
    expect(r.result.outputs.groupChild).toBe(child?.id);
  });

  it('never stores secret config or secret outputs in plaintext', () => {
    for (const run of runs) {
      for (const save of run.saves) {
        expect(save.text).not.toContain(PASSWORD);
        expect(save.text).not.toContain('s3cr3t-out');
      }
    }
    const b = thing(runs[0], 'b');
    expect(b?.inputs?.password).toMatchObject({ '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', ciphertext: expect.any(String) });
    const stackRes = resources(runs[0]).find((x) => x.type === 'pulumi:pulumi:Stack');
    expect(stackRes?.outputs?.secretOut).toHaveProperty('ciphertext');
  });

  it('keeps unchanged resources, updates, deletes removed ones and creates new ones', () => {
    const r = runs[1];
    expect(r.result.ok).toBe(true);
    expect(ops(r, 'a')).toEqual(['same']);
    expect(ops(r, 'b')).toEqual(['update']);
    expect(ops(r, 'c')).toEqual(['delete']);
    expect(ops(r, 'e')).toEqual(['create']);
    expect(thing(r, 'c')).toBeUndefined();
    expect(thing(r, 'b')?.outputs?.serial).toBe(2);
    expect(thing(r, 'b')?.id).toBe(thing(runs[0], 'b')?.id);
  });

  it('replaces create-before-delete and updates the dependent', () => {
    const r = runs[2];
    expect(r.result.ok).toBe(true);
    expect(ops(r, 'a')).toEqual(['create-replacement', 'replace', 'delete-replaced']);
    const oldA = thing(runs[1], 'a')!.id!;
    const newA = thing(r, 'a')!.id!;
    expect(newA).not.toBe(oldA);
    expect(ops(r, 'b')).toEqual(['update']);
    expect(thing(r, 'b')?.inputs?.ref).toBe(newA);
    expect(thing(r, 'b')?.dependencies).toContain(thing(r, 'a')?.urn);
    expect(resources(r).filter((x) => x.delete)).toEqual([]);
  });

  it('deletes before replacing when the provider asks for it', () => {
    const r = runs[3];
    expect(r.result.ok).toBe(true);
    expect(ops(r, 'd')).toEqual(['delete-replaced', 'create-replacement', 'replace']);
    expect(thing(r, 'd')?.inputs?.r_key).toBe('d2');
  });

  it('leaves the replaced resource marked for deletion when a later step fails', () => {
    const r = runs[4];
    expect(r.result.ok).toBe(false);
    expect(r.result.errors.join('\n')).toContain('injected update failure for e');
    const marked = thing(r, 'a', { deleted: true });
    expect(marked?.id).toBe(thing(runs[3], 'a')?.id);
    expect(thing(r, 'a')?.inputs?.r_key).toBe('a3');
    expect(r.steps.some((s) => s.op === 'delete-replaced')).toBe(false);
    expect(r.result.outputs).toBeDefined();
  });

  it('deletes the marked resource on the next successful run', () => {
    const r = runs[5];
    expect(r.result.ok).toBe(true);
    expect(resources(r).filter((x) => x.delete)).toEqual([]);
    expect(r.steps.filter((s) => s.op === 'delete-replaced' && s.phase === 'done').map((s) => s.urn)).toEqual([thing(r, 'a')!.urn]);
    expect(ops(r, 'e')).toEqual(['update']);
  });

  it('destroys everything', () => {
    const r = runs[6];
    expect(r.result.ok).toBe(true);
    expect(resources(r)).toEqual([]);
    expect(worldIds(stack.world)).toEqual([]);
  });
});

describe('engine: protect and preview', () => {
  it('blocks deleting a protected resource until it is unprotected', async () => {
    const stack = new TestStack(PROGRAM, 'scenario', 'protect');
    const created = await stack.run('update', config(10));
    expect(created.result.ok).toBe(true);
    const blocked = await stack.run('update', config(11));
    expect(blocked.result.ok).toBe(false);
    expect(blocked.result.errors.join('\n')).toMatch(/protect/);
    expect(resources(blocked).some((r) => r.urn.endsWith('::p') && r.protect)).toBe(true);
    const unprotected = await stack.run('update', config(12));
    expect(unprotected.result.ok).toBe(true);
    const deleted = await stack.run('update', config(13));
    expect(deleted.result.ok).toBe(true);
    expect(resources(deleted).some((r) => r.urn.endsWith('::p'))).toBe(false);
  }, 60_000);

  it('previews without creating or saving anything', async () => {
    const stack = new TestStack(PROGRAM, 'scenario', 'preview');
    const r = await stack.run('preview', config(1));
    expect(r.result.ok).toBe(true);
    expect(r.steps.filter((s) => s.phase === 'done' && s.op === 'create').length).toBeGreaterThanOrEqual(5);
    expect(r.steps.every((s) => s.preview)).toBe(true);
    expect(providerCalls(stack).filter((c) => c.op === 'create' || c.op === 'update')).toEqual([]);
    expect(r.saves).toEqual([]);
    expect(worldIds(stack.world)).toEqual([]);
  }, 60_000);
});

describe('engine: refresh', () => {
  it('drops resources the provider no longer has and takes in changed outputs', async () => {
    const stack = new TestStack(PROGRAM, 'scenario', 'refresh');
    const created = await stack.run('update', config(1));
    expect(created.result.ok).toBe(true);
    const c = thing(created, 'c')!;
    const d = thing(created, 'd')!;
    changeInWorld(stack.world, d.id!, { ...worldResource(stack.world, d.id!), serial: 42 });
    deleteFromWorld(stack.world, c.id!);

    const preview = await stack.run('refresh', config(1), { dryRun: true });
    expect(preview.saves).toEqual([]);
    expect(thing(preview, 'c')).toBeDefined();

    const refreshed = await stack.run('refresh', config(1));
    expect(refreshed.result.ok).toBe(true);
    expect(thing(refreshed, 'c')).toBeUndefined();
    expect(thing(refreshed, 'd')?.outputs?.serial).toBe(42);
    expect(ops(refreshed, 'd')).toEqual(['update']);
    expect(ops(refreshed, 'a')).toEqual(['same']);
  }, 60_000);
});
