/**
 * `GET /api/stacks/{org}/{project}/{stack}/diff` through `stackyard serve` on local storage: the changes between two
 * versions, secrets as `[secret]` to a viewer and in plaintext only to a caller who may decrypt (403 otherwise),
 * and `{code, message}` errors that say what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const STACK = '/api/stacks/acme/web/dev';
const TYPE = 'aws:s3/bucket:Bucket';
const urn = (name: string) => `urn:pulumi:dev::web::${TYPE}::${name}`;

let serve: ServeProcess;
let wire: PulumiWire;
let admin: { token: string };
let viewer: { token: string };

async function userToken(login: string, role: 'viewer' | 'member'): Promise<{ token: string }> {
  ok(await wire.call('POST', '/api/users', { auth: admin, body: { login } }), 201);
  ok(await wire.call('POST', '/api/orgs/acme/members', { auth: admin, body: { login, role } }), 201);
  const created = ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: 'test', login } }), 201);
  return { token: created.tokenValue as string };
}

async function sealed(value: string): Promise<Record<string, string>> {
  const body = { plaintexts: [Buffer.from(JSON.stringify(value)).toString('base64')] };
  const { ciphertexts } = ok(await wire.call('POST', `${STACK}/batch-encrypt`, { auth: admin, body }));
  return { [SIG]: SECRET, ciphertext: ciphertexts[0] };
}

async function importVersion(buckets: Record<string, { id: string; inputs: Record<string, unknown> }>): Promise<void> {
  const resources = Object.entries(buckets).map(([name, b]) => ({ urn: urn(name), custom: true, type: TYPE, id: b.id, inputs: b.inputs, outputs: b.inputs }));
  const deployment = { manifest: { time: '2026-03-01T12:00:00Z', magic: '', version: '' }, resources };
  ok(await wire.call('POST', `${STACK}/import`, { auth: admin, body: { version: 3, deployment } }));
}

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
  wire = new PulumiWire(serve.url);
  admin = { token: serve.adminToken };
  ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
  viewer = await userToken('vera', 'viewer');
  ok(await wire.call('POST', '/api/stacks/acme/web', { auth: admin, body: { stackName: 'dev' } }));
  await importVersion({ keep: { id: 'k1', inputs: { acl: 'private' } }, edit: { id: 'e1', inputs: { acl: 'private', key: await sealed('old-key') } }, swap: { id: 's1', inputs: {} }, gone: { id: 'g1', inputs: {} } });
  await importVersion({ keep: { id: 'k1', inputs: { acl: 'private' } }, edit: { id: 'e1', inputs: { acl: 'public', key: await sealed('new-key') } }, swap: { id: 's2', inputs: {} }, fresh: { id: 'f1', inputs: {} } });
});

afterAll(async () => {
  wire?.close();
  await serve?.stop();
});

describe('GET …/diff', () => {
  it('lists only what changed between the last two versions, secrets as [secret]', async () => {
    const diff = ok(await wire.call('GET', `${STACK}/diff`, { auth: viewer }));

    expect(diff).toEqual({
      from: 1,
      to: 2,
      added: [{ urn: urn('fresh'), type: TYPE, id: 'f1' }],
      removed: [{ urn: urn('gone'), type: TYPE, id: 'g1' }],
      replaced: [{ urn: urn('swap'), type: TYPE, id: 's2', oldId: 's1', diffs: [] }],
      updated: [
        {
          urn: urn('edit'),
          type: TYPE,
          diffs: [
            { path: ['inputs', 'acl'], kind: 'update', old: 'private', new: 'public' },
            { path: ['inputs', 'key'], kind: 'update', old: '[secret]', new: '[secret]' },
            { path: ['outputs', 'acl'], kind: 'update', old: 'private', new: 'public' },
            { path: ['outputs', 'key'], kind: 'update', old: '[secret]', new: '[secret]' },
          ],
        },
      ],
    });
  });

  it('shows secrets in plaintext to a caller who may decrypt and refuses a viewer with 403', async () => {
    const revealed = ok(await wire.call('GET', `${STACK}/diff?from=1&to=2&showSecrets=true`, { auth: admin }));
    const refused = failed(await wire.call('GET', `${STACK}/diff?showSecrets=true`, { auth: viewer }), 403);

    expect(revealed.updated[0].diffs[1]).toEqual({ path: ['inputs', 'key'], kind: 'update', old: 'old-key', new: 'new-key' });
    expect(refused).toMatch(/\S/);
  });

  it('gives the reverse diff for from > to', async () => {
    const reverse = ok(await wire.call('GET', `${STACK}/diff?from=2&to=1`, { auth: viewer }));

    expect(reverse).toMatchObject({ from: 2, to: 1, added: [{ urn: urn('gone') }], removed: [{ urn: urn('fresh') }] });
  });

  it('answers an unknown version with 404 saying what to do, and bad parameters with 400', async () => {
    const unknown = failed(await wire.call('GET', `${STACK}/diff?from=1&to=9`, { auth: viewer }), 404);
    const notNumber = failed(await wire.call('GET', `${STACK}/diff?from=abc`, { auth: viewer }), 400);
    const badFlag = failed(await wire.call('GET', `${STACK}/diff?showSecrets=yes`, { auth: viewer }), 400);

    expect(unknown).toBe("Version 9 of stack 'acme/web/dev' not found: the stack is at version 2; run 'stackyard stack history' to see its versions.");
    expect(notNumber).toContain("from must be a version number (0 or more), got 'abc'");
    expect(badFlag).toContain('showSecrets must be true or false');
  });
});
