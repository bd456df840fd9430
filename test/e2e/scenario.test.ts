/**
 * The engine scenario (test/fixtures/programs/scenario) through the bundled CLI: on `login --local` (no server), and
 * against `stackyard serve` on local storage and on the AWS stand-ins: create, update/delete/create, replace with a dependent update, delete-before-
 * replace, a failure leaving the replaced resource marked for deletion, the next run deleting it, a StackReference
 * reading a secret output across stacks, and destroy. Each step is checked on `stack export`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes } from '../cli/cli-harness.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { E2eService, SHORT_LEASE, nameOf, type E2eProject, type Exported, type ExportedResource } from './e2e-harness.js';

const PASSWORD = 'hunter2-e2e-plaintext';
const SECRET_OUTPUT = 's3cr3t-out';

function thing(state: Exported, name: string, opts: { deleted?: boolean } = {}): ExportedResource | undefined {
  return state.deployment.resources?.find((r) => r.type === 'testprov:index:Thing' && nameOf(r.urn) === name && !!r.delete === !!opts.deleted);
}

function thingNames(state: Exported): string[] {
  return (state.deployment.resources ?? []).filter((r) => r.type === 'testprov:index:Thing' && !r.delete).map((r) => nameOf(r.urn)).sort();
}

const BACKENDS = [
  { name: '`login --local`, no server', storage: 'cli-local' },
  { name: '`stackyard serve` on local storage', storage: 'local' },
  { name: '`stackyard serve` on the AWS stand-ins', storage: 'aws' },
] as const;

describe.each(BACKENDS)('the scenario through $name', ({ storage }) => {
  let standIns: AwsStandIns | undefined;
  let service: E2eService;
  let project: E2eProject;
  const states: Exported[] = [];
  const exportedTexts: string[] = [];

  const step = async (n: number, ...flags: string[]) => {
    const set = await project.cli('config', 'set', 'step', String(n));
    expect(set.status, set.stderr).toBe(0);
    const up = await project.cli('up', '--yes', ...flags);
    const exported = await project.cli('stack', 'export');
    exportedTexts.push(exported.stdout);
    states[n] = JSON.parse(exported.stdout) as Exported;
    return up;
  };

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    service = await E2eService.start(storage === 'cli-local' ? storage : { storage, env: standIns?.env });
    project = await service.project('scenario', 'test/fixtures/programs/scenario', 'dev', SHORT_LEASE);
    const secret = await project.cli('config', 'set', '--secret', 'password', PASSWORD);
    expect(secret.status, secret.stderr).toBe(0);
  });

  afterAll(async () => {
    await service?.stop();
    await standIns?.stop();
    removeSandboxes();
  });

  it('previews without calling the provider to create or storing a state', async () => {
    await project.cli('config', 'set', 'step', '1');

    const preview = await project.cli('preview');
    const exported = await project.export();

    expect(preview.status, preview.stderr).toBe(0);
    // Pulumi neither shows nor counts the default provider: the stack, four things, a component and its child.
    expect(preview.stdout).toMatch(/\+ 7 to create/);
    expect(project.providerCalls().filter((c) => c.op !== 'read')).toEqual([]);
    expect(exported.deployment.resources ?? []).toEqual([]);
  });

  it('creates four resources, a component child and the stack outputs (with a preview first)', async () => {
    const up = await step(1);

    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toContain('Previewing update');
    expect(thingNames(states[1]!)).toEqual(['a', 'b', 'c', 'd', 'g-child']);
    for (const r of (states[1]!.deployment.resources ?? []).filter((x) => x.custom)) expect(r.id, r.urn).toBeTruthy();
    expect(thing(states[1]!, 'b')?.inputs?.password).toMatchObject({ ciphertext: expect.any(String) });
    expect(states[1]!.deployment.pending_operations ?? []).toEqual([]);
  });

  it('keeps, updates, deletes and creates', async () => {
    const up = await step(2, '--skip-preview');

    expect(up.status, up.stderr).toBe(0);
    expect(thingNames(states[2]!)).toEqual(['a', 'b', 'd', 'e', 'g-child']);
    expect(thing(states[2]!, 'a')?.id).toBe(thing(states[1]!, 'a')?.id);
    expect(thing(states[2]!, 'b')?.id).toBe(thing(states[1]!, 'b')?.id);
    expect(thing(states[2]!, 'b')?.outputs?.serial).toBe(2);
  });

  it('replaces a resource and updates its dependent', async () => {
    const up = await step(3, '--skip-preview');

    expect(up.status, up.stderr).toBe(0);
    const newA = thing(states[3]!, 'a')!.id;
    expect(newA).not.toBe(thing(states[2]!, 'a')?.id);
    expect(thing(states[3]!, 'b')?.inputs?.ref).toBe(newA);
    expect(states[3]!.deployment.resources?.filter((r) => r.delete)).toEqual([]);
  });

  it('leaves the replaced resource marked for deletion when a later step fails, and deletes it on the next run', async () => {
    await step(4, '--skip-preview');
    const failed = await step(5, '--skip-preview');
    const marked = thing(states[5]!, 'a', { deleted: true });
    const recovered = await step(6, '--skip-preview');

    expect(failed.status).toBe(1);
    expect(failed.stdout + failed.stderr).toContain('injected update failure for e');
    expect(marked?.id).toBe(thing(states[4]!, 'a')?.id);
    expect(recovered.status, recovered.stderr).toBe(0);
    expect(states[6]!.deployment.resources?.filter((r) => r.delete)).toEqual([]);
    expect(thing(states[6]!, 'a')?.inputs?.r_key).toBe('a3');
  });

  it('refuses to delete a protected resource until it is unprotected', async () => {
    const guarded = await service.project('guarded', 'test/fixtures/programs/scenario', 'dev');
    const upAt = async (n: number) => {
      await guarded.cli('config', 'set', 'step', String(n));
      return guarded.cli('up', '--yes', '--skip-preview');
    };

    const created = await upAt(10);
    const blocked = await upAt(11);
    const afterBlocked = await guarded.export();
    const unprotected = await upAt(12);
    const deleted = await upAt(13);
    const afterDelete = await guarded.export();

    expect(created.status, created.stderr).toBe(0);
    expect(blocked.status).toBe(1);
    expect(blocked.stdout + blocked.stderr).toContain('currently marked for protection');
    expect(thing(afterBlocked, 'p')).toMatchObject({ protect: true });
    expect(unprotected.status, unprotected.stderr).toBe(0);
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(thing(afterDelete, 'p')).toBeUndefined();
    expect(guarded.providerCalls().filter((c) => c.op === 'delete').map((c) => nameOf(c.urn))).toEqual(['p']);
  });

  it('reads another stack\'s outputs, a secret one included, through StackReference', async () => {
    const reader = await service.project('reference', 'test/e2e/fixtures/reference', 'dev');
    await reader.cli('config', 'set', 'source', `${service.org}/scenario/dev`);

    const up = await reader.cli('up', '--yes', '--skip-preview');
    const outputs = await reader.cli('stack', 'output', '--json', '--show-secrets');
    const shown = await reader.cli('stack', 'output', '--json');
    const exported = await reader.cli('stack', 'export');

    expect(up.status, up.stdout + up.stderr).toBe(0);
    expect(JSON.parse(outputs.stdout)).toEqual({ copiedSecret: SECRET_OUTPUT, copiedValue: 2 });
    expect(JSON.parse(shown.stdout)).toMatchObject({ copiedSecret: '[secret]' });
    expect(exported.stdout).not.toContain(SECRET_OUTPUT);
  });

  it('destroys everything, and never stored a secret in plaintext', async () => {
    const destroyed = await project.cli('destroy', '--yes', '--skip-preview');
    const after = await project.export();

    expect(destroyed.status, destroyed.stderr).toBe(0);
    expect(after.deployment.resources ?? []).toEqual([]);
    expect(project.providerCalls().filter((c) => c.op === 'create').length).toBeGreaterThan(0);
    for (const text of exportedTexts) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(SECRET_OUTPUT);
    }
  });
});
