/**
 * Policy packs and groups on `stackyard serve`, replaying the `pulumi` CLI's request sequences (pkg/backend/httpstate/
 * client: PublishPolicyPack's create → PUT to the upload URI with its required headers → complete; ListPolicyPacks;
 * ApplyPolicyPack and DisablePolicyPack as PATCHes of a group; GetPolicyPackSchema; RemovePolicyPack[ByVersion];
 * GetStackPolicyPacks), with a tarball `npm pack` made of a real pack folder. Refusals change nothing.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmPack, PUBLISHED_PACK_POLICIES } from '../support/policy-pack-tarball.js';
import { failed, ok, PulumiWire, type WireResponse } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack, programRequest } from './wire-fixtures.js';

const PACKS = '/api/orgs/acme/policypacks';
const DEFAULT_GROUP = '/api/orgs/acme/policygroups/default-policy-group';

/** One ustar entry (header + content), enough to build the tarballs a pack must never be. */
function tarEntry(name: string, content: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  body.write(content);
  return Buffer.concat([header, body]);
}

const tarball = (...entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

describe('policy packs and groups through `stackyard serve`', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  let member: { token: string };
  let packed: Buffer;
  const admin = () => ({ token: serve.adminToken });
  const call = (method: string, path: string, body?: unknown, auth: { token: string } = admin()) =>
    wire.call(method, path, { auth, ...(body === undefined ? {} : { body }) });
  const createRequest = (versionTag: string) => ({ name: 'required-tags', displayName: 'Required tags', versionTag, policies: PUBLISHED_PACK_POLICIES, runtime: 'nodejs' });

  /** PublishPolicyPack's three calls; the upload goes where the service said, with only the headers it named. */
  async function publish(versionTag: string, bytes: Buffer): Promise<{ created: WireResponse; upload?: WireResponse; complete?: WireResponse }> {
    const created = await call('POST', PACKS, createRequest(versionTag));
    if (created.status !== 200) return { created };
    const target = new URL(created.json.uploadURI);
    const upload = await wire.call('PUT', target.pathname, { body: bytes, gzip: false, headers: created.json.requiredHeaders });
    if (upload.status !== 200) return { created, upload };
    return { created, upload, complete: await call('POST', `${PACKS}/required-tags/versions/${versionTag}/complete`) };
  }

  beforeAll(async () => {
    packed = npmPack();
    serve = await startServe({ storage: 'local' });
    wire = new PulumiWire(serve.url);
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
    ok(await call('POST', '/api/users', { login: 'mia' }), 201);
    ok(await call('POST', '/api/orgs/acme/members', { login: 'mia', role: 'member' }), 201);
    member = { token: ok(await call('POST', '/api/user/tokens', { description: 'mia', login: 'mia' }), 201).tokenValue };
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'dev' });
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'prod' });
  }, 120_000);

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
  });

  it('publishes an npm-packed pack in three calls; members list it, read its schema and fetch the same bytes', async () => {
    const { created, upload, complete } = await publish('1.0.0', packed);

    expect(created.json).toMatchObject({ version: 1, uploadURI: expect.stringContaining(`${serve.url}${PACKS}/required-tags/versions/1.0.0/upload`) });
    expect(created.json.requiredHeaders).toEqual({ 'X-Stackyard-Upload-Ticket': expect.stringMatching(/^[\w-]{43}$/), 'Content-Type': 'application/gzip' });
    expect(created.json.uploadURI).not.toContain(serve.adminToken);
    ok(upload!);
    ok(complete!);
    expect(ok(await call('GET', PACKS, undefined, member))).toEqual({
      policyPacks: [{ name: 'required-tags', displayName: 'Required tags', versions: [1], versionTags: ['1.0.0'] }],
    });
    expect(ok(await call('GET', `${PACKS}/required-tags/versions/1.0.0/schema`, undefined, member))).toEqual({
      configSchema: { 'has-owner-tag': PUBLISHED_PACK_POLICIES[0]!.configSchema },
    });
    expect(ok(await call('GET', `${PACKS}/required-tags/versions/1.0.0`, undefined, member))).toMatchObject({ name: 'required-tags', version: 1, versionTag: '1.0.0', applied: false });
    const download = await wire.call('GET', `${PACKS}/required-tags/versions/1.0.0/download`, { auth: member });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    failed(await wire.call('GET', `${PACKS}/required-tags/versions/1.0.0/download`), 401);
    const audit = ok(await call('GET', '/api/orgs/acme/auditlogs')).auditLogEvents as { event: string; description: string }[];
    expect(audit.map((e) => e.description)).toContain('published version 1.0.0 of policy pack required-tags');
  });

  it('refuses to publish a version again, a member publishing, and tarballs that escape, lack PulumiPolicy.yaml or are no tar, storing nothing', async () => {
    const before = ok(await call('GET', PACKS));

    failed((await publish('1.0.0', packed)).created, 409);
    failed(await call('POST', PACKS, createRequest('2.0.0'), member), 403);
    failed(await call('POST', PACKS, createRequest('1.0.0+bad/tag')), 400);
    const escaping = await publish('2.0.0', tarball(tarEntry('package/PulumiPolicy.yaml', 'runtime: nodejs\n'), tarEntry('package/../../evil.js', 'boom')));
    expect(failed(escaping.upload!, 400)).toContain('outside its package/ folder');
    const noManifest = await publish('2.0.0', tarball(tarEntry('package/index.js', '')));
    expect(failed(noManifest.upload!, 400)).toContain('PulumiPolicy.yaml');
    failed((await publish('2.0.0', Buffer.from('not a tarball'))).upload!, 400);
    // a refused upload leaves no pending version behind (so the fixed pack can be published at once)
    failed(await call('POST', `${PACKS}/required-tags/versions/2.0.0/complete`), 404);
    failed(await wire.call('PUT', `${PACKS}/required-tags/versions/2.0.0/upload`, { body: packed, gzip: false, headers: { 'X-Stackyard-Upload-Ticket': 'guessed' } }), 401);

    expect(ok(await call('GET', PACKS))).toEqual(before);
    failed(await call('GET', `${PACKS}/required-tags/versions/2.0.0`), 404);
  });

  it('enables a version with its config on the default group, which every stack is in, and lists it as the stacks’ required policies, in the create-update answer too', async () => {
    const patch = { addPolicyPack: { name: 'required-tags', versionTag: '1.0.0', config: { 'has-owner-tag': { tag: 'owner' } } } };

    failed(await call('PATCH', DEFAULT_GROUP, patch, member), 403);
    failed(await call('PATCH', DEFAULT_GROUP, { addPolicyPack: { ...patch.addPolicyPack, config: { 'has-owner-tag': { tag: 7 } } } }), 400);
    failed(await call('PATCH', DEFAULT_GROUP, { addPolicyPack: { ...patch.addPolicyPack, config: { 'no-such-policy': {} } } }), 400);
    expect(ok(await call('GET', DEFAULT_GROUP)).appliedPolicyPacks).toEqual([]);
    ok(await call('PATCH', DEFAULT_GROUP, patch));

    const group = ok(await call('GET', DEFAULT_GROUP, undefined, member));
    expect(group).toMatchObject({ name: 'default-policy-group', isOrgDefault: true, entityType: 'stacks', mode: 'preventative', accounts: [] });
    expect(group.stacks).toEqual([
      { name: 'dev', routingProject: 'app' },
      { name: 'prod', routingProject: 'app' },
    ]);
    expect(group.appliedPolicyPacks).toEqual([{ name: 'required-tags', displayName: 'Required tags', version: 1, versionTag: '1.0.0', config: { 'has-owner-tag': { tag: 'owner' } } }]);
    const required = ok(await call('GET', '/api/stacks/acme/app/dev/policypacks', undefined, member));
    expect(required).toEqual({
      requiredPolicies: [
        {
          name: 'required-tags',
          displayName: 'Required tags',
          version: 1,
          versionTag: '1.0.0',
          config: { 'has-owner-tag': { tag: 'owner' } },
          packLocation: `${serve.url}${PACKS}/required-tags/versions/1.0.0/download`,
        },
      ],
    });
    const update = ok(await call('POST', '/api/stacks/acme/app/dev/update', programRequest({ org: 'acme', project: 'app', stack: 'dev' }, true)));
    expect(update.requiredPolicies).toEqual(required.requiredPolicies);
    expect(ok(await call('GET', '/api/orgs/acme/policygroups', undefined, member)).policyGroups).toEqual([
      { name: 'default-policy-group', isOrgDefault: true, numStacks: 2, entityType: 'stacks', mode: 'preventative', numEnabledPolicyPacks: 1 },
    ]);
  });

  it('moves a stack into a group of its own and out of the default group', async () => {
    ok(await call('POST', '/api/orgs/acme/policygroups', { name: 'lenient', entityType: 'stacks' }), 204);
    failed(await call('POST', '/api/orgs/acme/policygroups', { name: 'lenient', entityType: 'stacks' }), 409);

    ok(await call('PATCH', '/api/orgs/acme/policygroups/lenient', { addStack: { name: 'prod', routingProject: 'app' } }));
    ok(await call('PATCH', DEFAULT_GROUP, { removeStack: { name: 'prod', routingProject: 'app' } }));

    expect(ok(await call('GET', DEFAULT_GROUP)).stacks).toEqual([{ name: 'dev', routingProject: 'app' }]);
    expect(ok(await call('GET', '/api/orgs/acme/policygroups/lenient')).stacks).toEqual([{ name: 'prod', routingProject: 'app' }]);
    expect(ok(await call('GET', '/api/stacks/acme/app/prod/policypacks'))).toEqual({ requiredPolicies: [] });
    failed(await call('PATCH', DEFAULT_GROUP, { addStack: { name: 'nope', routingProject: 'app' } }), 404);
    failed(await call('DELETE', DEFAULT_GROUP), 400);
  });

  it('keeps an enabled version until it is disabled, then deletes it', async () => {
    failed(await call('DELETE', `${PACKS}/required-tags/versions/1.0.0`), 409);
    failed(await call('DELETE', `${PACKS}/required-tags`), 409);

    ok(await call('PATCH', DEFAULT_GROUP, { removePolicyPack: { name: 'required-tags', versionTag: '1.0.0' } }));
    failed(await call('PATCH', DEFAULT_GROUP, { removePolicyPack: { name: 'required-tags', versionTag: '1.0.0' } }), 404);
    ok(await call('DELETE', `${PACKS}/required-tags/versions/1.0.0`), 204);

    expect(ok(await call('GET', PACKS))).toEqual({ policyPacks: [] });
    failed(await wire.call('GET', `${PACKS}/required-tags/versions/1.0.0/download`, { auth: admin() }), 404);
  });
});
