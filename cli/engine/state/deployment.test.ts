import { describe, expect, it } from 'vitest';
import { DeploymentSerializer, loadDeployment, SnapshotIntegrityError, verifyIntegrity, type ResourceState, type SecretsCrypter } from './deployment.js';
import { makeSecret } from '../resource/properties.js';

/** Reversible and visibly different from the plaintext, so tests can see encryption happened. */
const crypter: SecretsCrypter & { calls: number } = {
  calls: 0,
  async encrypt(p) {
    this.calls++;
    return p.map((x) => Buffer.from(x).toString('base64').split('').reverse().join(''));
  },
  async decrypt(c) {
    return c.map((x) => Buffer.from(x.split('').reverse().join(''), 'base64').toString());
  },
};

const stack: ResourceState = { urn: 'urn:pulumi:d::p::pulumi:pulumi:Stack::p-d', custom: false, type: 'pulumi:pulumi:Stack', outputs: { pw: makeSecret('hunter2') } };
const prov: ResourceState = { urn: 'urn:pulumi:d::p::pulumi:providers:t::default', custom: true, type: 'pulumi:providers:t', id: 'pid', inputs: {}, outputs: {} };
const thing: ResourceState = {
  urn: 'urn:pulumi:d::p::t:index:Thing::a', custom: true, type: 't:index:Thing', id: 'a1', parent: stack.urn,
  provider: `${prov.urn}::pid`, inputs: { secret: makeSecret({ nested: [1, 2] }) }, outputs: { secret: makeSecret({ nested: [1, 2] }) },
};

describe('deployment serialization', () => {
  it('encrypts secrets on save and decrypts them on load', async () => {
    const s = new DeploymentSerializer(crypter);
    const cp = await s.serialize({ resources: [stack, prov, thing], pendingOperations: [] }, () => 0);
    expect(cp.text).not.toContain('hunter2');
    expect(cp.deployment.manifest.time).toBe('1970-01-01T00:00:00.000Z');
    const loaded = await loadDeployment(JSON.parse(cp.text), crypter);
    expect(loaded.resources).toEqual([stack, prov, thing]);
  });

  it('re-encrypts only states that changed since the last save', async () => {
    const s = new DeploymentSerializer(crypter);
    await s.serialize({ resources: [stack, prov, thing], pendingOperations: [] }, () => 0);
    const before = crypter.calls;
    const cp = await s.serialize({ resources: [stack, prov, thing], pendingOperations: [{ resource: thing, type: 'updating' }] }, () => 0);
    expect(crypter.calls).toBe(before);
    expect(cp.deployment.pending_operations?.[0].type).toBe('updating');
  });

  it('refuses snapshots with dangling or out-of-order references', () => {
    expect(() => verifyIntegrity([stack, prov, thing])).not.toThrow();
    expect(() => verifyIntegrity([stack, thing, prov])).toThrow(SnapshotIntegrityError);
    expect(() => verifyIntegrity([prov, thing])).toThrow(/refers to parent .* which is missing/);
    expect(() => verifyIntegrity([stack, prov, thing, { ...thing }])).toThrow(/appears more than once not marked for deletion/);
    expect(() => verifyIntegrity([stack, prov, { ...thing, delete: true }, thing])).not.toThrow();
  });

  it('rejects unknown deployment versions', async () => {
    await expect(loadDeployment({ version: 9, deployment: {} }, crypter)).rejects.toThrow(/version 9/);
  });
});
