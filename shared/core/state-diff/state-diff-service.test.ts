import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../errors.js';
import type { StackRef } from '../names.js';
import type { Principal } from '../kernel/principal.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { createStateDiffService } from './state-diff-service.js';
import type { StateDiffService } from './types.js';

const DEV: StackRef = { org: 'acme', project: 'web', stack: 'dev' };
const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const TYPE = 'aws:s3/bucket:Bucket';
const urn = (name: string) => `urn:pulumi:dev::web::${TYPE}::${name}`;

let fx: ServiceFixture;
let service: StateDiffService;
let alice: Principal;
let vera: Principal;

beforeEach(async () => {
  fx = await serviceFixture();
  service = createStateDiffService(fx.deps);
  alice = await fx.user('alice', ['acme']);
  vera = await fx.user('vera', ['acme'], 'viewer');
  await fx.stacks.create(alice, DEV);
});

afterEach(async () => {
  await fx.close();
});

/** A secret sealed with the stack's own key, as the CLI stores it. */
async function sealed(value: string): Promise<Record<string, string>> {
  const stack = await fx.storage.stacks.get(DEV);
  const [ciphertext] = await fx.deps.keys.encryptForStack(stack, [Buffer.from(JSON.stringify(value))]);
  return { [SIG]: SECRET, ciphertext: Buffer.from(ciphertext!).toString('base64') };
}

/** Imports a version whose buckets have the given inputs (outputs equal). */
async function importVersion(buckets: Record<string, Record<string, unknown>>): Promise<void> {
  const resources = Object.entries(buckets).map(([name, inputs]) => ({ urn: urn(name), custom: true, type: TYPE, id: `${name}-id`, inputs, outputs: inputs }));
  await fx.stacks.importDeployment(alice, DEV, { version: 3, deployment: { manifest: { time: '2026-03-01T12:00:00Z', magic: '', version: '' }, resources } });
}

describe('stack diff on the service', () => {
  it('compares the last two versions by default, and version 0 is the empty stack', async () => {
    await importVersion({ a: { acl: 'private' } });
    await importVersion({ a: { acl: 'public' }, b: {} });

    const latest = await service.diffVersions(alice, DEV, {});
    const first = await service.diffVersions(alice, DEV, { from: 0, to: 1 });

    expect(latest).toMatchObject({ from: 1, to: 2, added: [{ urn: urn('b') }], removed: [], replaced: [] });
    expect(latest.updated.map((u) => u.diffs.map((d) => d.path.join('.')))).toEqual([['inputs.acl', 'outputs.acl']]);
    expect(first.added.map((r) => r.urn)).toEqual([urn('a')]);
  });

  it('shows secrets as [secret], drops a re-encrypted secret whose value is the same, and reveals to a caller who may decrypt', async () => {
    await importVersion({ a: { password: await sealed('hunter2'), token: await sealed('same') } });
    await importVersion({ a: { password: await sealed('swordfish'), token: await sealed('same') } });

    const masked = await service.diffVersions(vera, DEV, {});
    const revealed = await service.diffVersions(alice, DEV, {}, { showSecrets: true });

    expect(masked.updated[0]!.diffs).toEqual([
      { path: ['inputs', 'password'], kind: 'update', old: '[secret]', new: '[secret]' },
      { path: ['outputs', 'password'], kind: 'update', old: '[secret]', new: '[secret]' },
    ]);
    expect(revealed.updated[0]!.diffs[0]).toEqual({ path: ['inputs', 'password'], kind: 'update', old: 'hunter2', new: 'swordfish' });
    expect(JSON.stringify(masked)).not.toContain('hunter2');
  });

  it('refuses --show-secrets to a viewer (403) and says what to do about an unknown version (404) or a bad one (400)', async () => {
    await importVersion({ a: {} });

    await expect(service.diffVersions(vera, DEV, {}, { showSecrets: true })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(service.diffVersions(alice, DEV, { from: 1, to: 7 })).rejects.toThrow(new NotFoundError("Version 7 of stack 'acme/web/dev' not found: the stack is at version 1; run 'stackyard stack history' to see its versions."));
    await expect(service.diffVersions(alice, DEV, { from: -1 })).rejects.toBeInstanceOf(InvalidInputError);
  });
});
