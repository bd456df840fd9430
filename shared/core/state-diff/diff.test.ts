import { describe, expect, it } from 'vitest';
import { diffDeployments } from './diff.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const urn = (name: string) => `urn:pulumi:dev::web::aws:s3/bucket:Bucket::${name}`;

function bucket(name: string, id: string, inputs: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { urn: urn(name), custom: true, type: 'aws:s3/bucket:Bucket', id, inputs, outputs: { ...inputs, arn: `arn:${id}` }, ...extra };
}

describe('diffDeployments', () => {
  it('lists added, removed, replaced and updated resources, and nothing about unchanged ones', () => {
    const from = { resources: [bucket('same', 's1', { acl: 'private' }), bucket('gone', 'g1'), bucket('swap', 'old-id', { name: 'a' }), bucket('edit', 'e1', { acl: 'private' })] };
    const to = { resources: [bucket('same', 's1', { acl: 'private' }), bucket('swap', 'new-id', { name: 'b' }), bucket('edit', 'e1', { acl: 'public-read' }), bucket('new', 'n1')] };

    const diff = diffDeployments(from, to);

    expect(diff.added).toEqual([{ urn: urn('new'), type: 'aws:s3/bucket:Bucket', id: 'n1' }]);
    expect(diff.removed).toEqual([{ urn: urn('gone'), type: 'aws:s3/bucket:Bucket', id: 'g1' }]);
    expect(diff.replaced).toEqual([
      {
        urn: urn('swap'),
        type: 'aws:s3/bucket:Bucket',
        id: 'new-id',
        oldId: 'old-id',
        diffs: [
          { path: ['inputs', 'name'], kind: 'update', old: 'a', new: 'b' },
          { path: ['outputs', 'name'], kind: 'update', old: 'a', new: 'b' },
          { path: ['outputs', 'arn'], kind: 'update', old: 'arn:old-id', new: 'arn:new-id' },
        ],
      },
    ]);
    expect(diff.updated).toEqual([
      {
        urn: urn('edit'),
        type: 'aws:s3/bucket:Bucket',
        diffs: [
          { path: ['inputs', 'acl'], kind: 'update', old: 'private', new: 'public-read' },
          { path: ['outputs', 'acl'], kind: 'update', old: 'private', new: 'public-read' },
        ],
      },
    ]);
  });

  it('walks nested objects to the changed keys, keeps arrays whole, and reports fields such as protect', () => {
    const from = { resources: [bucket('b', 'b1', { tags: { env: 'dev', team: 'web', keep: 'x' }, ports: [80, 443] })] };
    const to = { resources: [bucket('b', 'b1', { tags: { env: 'prod', keep: 'x', owner: 'ops' }, ports: [80, 8443] }, { protect: true })] };

    const [updated] = diffDeployments(from, to).updated;

    expect(updated!.diffs.filter((d) => d.path[0] === 'inputs')).toEqual([
      { path: ['inputs', 'tags', 'env'], kind: 'update', old: 'dev', new: 'prod' },
      { path: ['inputs', 'tags', 'team'], kind: 'delete', old: 'web' },
      { path: ['inputs', 'tags', 'owner'], kind: 'add', new: 'ops' },
      { path: ['inputs', 'ports'], kind: 'update', old: [80, 443], new: [80, 8443] },
    ]);
    expect(updated!.diffs.filter((d) => d.path[0] === 'protect')).toEqual([{ path: ['protect'], kind: 'add', new: true }]);
  });

  it('compares a secret as one value, ignores key order and timestamps, and skips resources pending deletion', () => {
    const secret = (ciphertext: string) => ({ [SIG]: SECRET, ciphertext });
    const from = { resources: [bucket('s', 's1', { a: 1, b: { x: 1, y: 2 }, password: secret('c1') }, { modified: '2026-01-01' })] };
    const to = {
      resources: [
        bucket('s', 's1', { b: { y: 2, x: 1 }, a: 1, password: secret('c2') }, { modified: '2026-02-01' }),
        bucket('doomed', 'd1', {}, { delete: true }),
      ],
    };

    const diff = diffDeployments(from, to);

    expect(diff.added).toEqual([]);
    expect(diff.updated[0]!.diffs).toEqual([
      { path: ['inputs', 'password'], kind: 'update', old: secret('c1'), new: secret('c2') },
      { path: ['outputs', 'password'], kind: 'update', old: secret('c1'), new: secret('c2') },
    ]);
  });

  it('gives the reverse diff when the versions are swapped', () => {
    const older = { resources: [bucket('a', 'a1')] };
    const newer = { resources: [bucket('a', 'a1'), bucket('b', 'b1')] };

    const reverse = diffDeployments(newer, older);

    expect(reverse.removed.map((r) => r.urn)).toEqual([urn('b')]);
    expect(reverse.added).toEqual([]);
  });
});
