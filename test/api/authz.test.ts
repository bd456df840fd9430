import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../functions/http/routes/index.js';
import { failed, ok, PulumiWire, type Auth } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createAndStart, createStack, deployment, engineEvents, runUpdate, stackPath, type Ref } from './wire-fixtures.js';

/**
 * Every route of the API, called with each kind of wrong credential: none, an unknown token, a token of a user
 * outside the stack's organization, and (on update-token routes) a stale or foreign update token. Each must be
 * refused with 401, 404 or 403 as the Pulumi CLI expects, and none may change anything.
 */

let serve: ServeProcess;
let wire: PulumiWire;
let alice: string;
let aliceTokenId: string;
let bob: string;
/** acme/proj/dev, with state, a completed update (stale token) and a live update. */
const dev: Ref = { org: 'acme', project: 'proj', stack: 'dev' };
/** acme/proj/other, with a live update whose token is foreign to dev. */
const other: Ref = { org: 'acme', project: 'proj', stack: 'other' };
let liveUpdateId: string;
let liveToken: string;
let staleToken: string;
let foreignToken: string;
let before: string;

/** Update-token routes (pulumi-service-api.md §3.4, LEASE). */
const LEASE_ROUTE = /\/update\/\{updateId\}\/(renew_lease|checkpoint|checkpointverbatim|checkpointdelta|journalentries|events\/batch|complete)$/;

/** What an outsider (authenticated, not in acme, not an administrator) gets from the routes outside /api/stacks. */
const OUTSIDER_STATUS: Record<string, number> = {
  'GET /api/user': 200,
  'GET /api/user/organizations/default': 200,
  'GET /api/capabilities': 200,
  'GET /api/registry/packages': 200,
  'GET /api/user/stacks': 200,
  'GET /api/orgs': 200,
  'POST /api/users': 403,
  'POST /api/orgs': 403,
  'POST /api/orgs/{orgName}/members': 404,
  'POST /api/user/tokens': 403,
  'GET /api/user/tokens': 403,
  'DELETE /api/user/tokens/{tokenId}': 403,
  'GET /api/orgs/{orgName}/hooks': 404,
  'POST /api/orgs/{orgName}/hooks': 404,
  'GET /api/orgs/{orgName}/hooks/{hookName}': 404,
  'DELETE /api/orgs/{orgName}/hooks/{hookName}': 404,
  'GET /api/orgs/{orgName}/hooks/{hookName}/deliveries': 404,
  'POST /api/orgs/{orgName}/hooks/{hookName}/ping': 404,
  'POST /api/orgs/{orgName}/hooks/{hookName}/deliveries/{deliveryId}/redeliver': 404,
  // Sign-in reads credentials from its body only; an outsider's own session, sign-out and login codes are theirs.
  'POST /api/console/sessions': 401,
  'GET /api/console/session': 200,
  'DELETE /api/console/session': 200,
  'POST /api/console/login-codes': 200,
  'GET /api/console/orgs/{orgName}/stacks': 404,
  'GET /api/console/stacks/{orgName}/{projectName}/{stackName}': 404,
};

/** The hook the hook routes act on (org and stack scope alike); inactive, so nothing is ever sent to it. */
const HOOK = { name: 'watch', url: 'https://ci.example.com/stackyard', secret: 'hook-secret-value', active: false };

function concretePath(path: string): string {
  const filled = path
    .replace('{orgName}', dev.org)
    .replace('{projectName}', dev.project)
    .replace('{stackName}', dev.stack)
    .replace('{updateId}', liveUpdateId)
    .replace('{version}', '1')
    .replace('{tokenId}', aliceTokenId)
    .replace('{hookName}', HOOK.name)
    .replace('{deliveryId}', '0000000000000-0000000000000000');
  // Token routes act on alice's tokens; the organization route on acme.
  return /\/api\/user\/tokens/.test(path) ? `${filled}?login=alice` : filled;
}

/** A valid body for each route, so that only the credentials are wrong. */
function bodyFor(method: string, path: string): unknown {
  const key = `${method} ${path}`;
  const suffix = path.split('/').pop();
  if (key === 'POST /api/users') return { login: 'mallory' };
  if (key === 'POST /api/orgs') return { name: 'evil-corp' };
  if (key === 'POST /api/orgs/{orgName}/members') return { login: 'bob', role: 'admin' };
  if (key === 'POST /api/user/tokens') return { description: 'stolen', login: 'alice' };
  if (key === 'POST /api/stacks/{orgName}/{projectName}') return { stackName: 'intruder' };
  if (key === 'POST /api/console/login-codes') return { path: '/acme/proj/dev' };
  switch (suffix) {
    case 'hooks':
      return method === 'POST' ? { name: 'intruder', url: 'https://evil.example.com/hook' } : undefined;
    case 'rename':
      return { newName: 'renamed', newProject: dev.project };
    case 'tags':
      return { 'pulumi:project': dev.project, owner: 'mallory' };
    case 'import':
      return deployment(serve.url, dev, 0);
    case 'rollback':
      return { version: 1 };
    case 'history':
      return { version: 99, kind: 'update', result: 'succeeded', startTime: 1, endTime: 2 };
    case 'update':
    case 'preview':
    case 'refresh':
    case 'destroy':
      return method === 'POST' ? { options: { dryRun: false } } : undefined;
    case '{updateId}':
      return method === 'POST' ? { tags: { owner: 'mallory' } } : undefined;
    case 'renew_lease':
      return { token: '', duration: 300 };
    case 'checkpoint':
      return { isInvalid: false, ...deployment(serve.url, dev, 0) };
    case 'checkpointverbatim':
      return { version: 3, untypedDeployment: deployment(serve.url, dev, 0), sequenceNumber: 1 };
    case 'checkpointdelta':
      return { version: 3, checkpointHash: '0'.repeat(64), sequenceNumber: 2, deploymentDelta: [] };
    case 'journalentries':
      return { entries: [{ version: 1, kind: 0, sequenceID: 1, operationID: 1, removeOld: null, removeNew: null }] };
    case 'batch':
      return { events: engineEvents({ delete: 9 }, false) };
    case 'complete':
      return { status: 'failed' };
    case 'encrypt':
      return { plaintext: 'aGk=' };
    case 'decrypt':
      return { ciphertext: 'aGk=' };
    case 'batch-encrypt':
      return { plaintexts: ['aGk='] };
    case 'batch-decrypt':
      return { ciphertexts: ['aGk='] };
    case 'log-decryption':
      return { secretName: 'x' };
    case 'log-batch-decryption':
      return { commandName: 'pulumi stack export' };
    default:
      return undefined;
  }
}

/** Everything the matrix could have changed, as alice and the administrator see it. */
async function snapshot(): Promise<string> {
  const asAlice = { token: alice };
  const asAdmin = { token: serve.adminToken };
  const reads = await Promise.all([
    wire.call('GET', stackPath(dev), { auth: asAlice }),
    wire.call('GET', `${stackPath(dev)}/export`, { auth: asAlice }),
    wire.call('GET', `${stackPath(dev)}/updates`, { auth: asAlice }),
    wire.call('GET', stackPath(other), { auth: asAlice }),
    wire.call('GET', '/api/user/stacks', { auth: asAlice }),
    wire.call('GET', '/api/orgs', { auth: asAdmin }),
    wire.call('GET', '/api/user/tokens?login=alice', { auth: asAdmin }),
    wire.call('GET', '/api/user/tokens?login=bob', { auth: asAdmin }),
    wire.call('GET', `${stackPath(dev)}/update/${liveUpdateId}`, { auth: asAlice }),
    wire.call('GET', '/api/orgs/acme/hooks', { auth: asAlice }),
    wire.call('GET', `${stackPath(dev)}/hooks`, { auth: asAlice }),
  ]);
  return JSON.stringify(reads.map((read) => ok(read)));
}

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
  wire = new PulumiWire(serve.url);
  const admin = { token: serve.adminToken };
  ok(await wire.call('POST', '/api/users', { auth: admin, body: { login: 'alice' } }), 201);
  ok(await wire.call('POST', '/api/users', { auth: admin, body: { login: 'bob' } }), 201);
  ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
  ok(await wire.call('POST', '/api/orgs/acme/members', { auth: admin, body: { login: 'alice', role: 'admin' } }), 201);
  const aliceToken = ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: 'alice', login: 'alice' } }), 201);
  alice = aliceToken.tokenValue;
  aliceTokenId = aliceToken.id;
  bob = ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: 'bob', login: 'bob' } }), 201).tokenValue;

  await createStack(wire, alice, dev);
  await createStack(wire, alice, other);
  const finished = await createAndStart(wire, alice, dev, 'update', { dryRun: false });
  ok(await wire.call('PATCH', `${stackPath(dev)}/update/${finished.updateId}/checkpoint`, { auth: { updateToken: finished.leaseToken }, body: { isInvalid: false, ...deployment(serve.url, dev, 2) } }));
  ok(await wire.call('POST', `${stackPath(dev)}/update/${finished.updateId}/complete`, { auth: { updateToken: finished.leaseToken }, body: { status: 'succeeded' } }));
  staleToken = finished.leaseToken;
  await runUpdate(wire, alice, dev, 'update', { dryRun: false, checkpoints: [deployment(serve.url, dev, 3)] });
  ok(await wire.call('POST', `${stackPath(dev)}/encrypt`, { auth: { token: alice }, body: { plaintext: 'aGk=' } }));
  const live = await createAndStart(wire, alice, dev, 'update', { dryRun: false });
  liveUpdateId = live.updateId;
  liveToken = live.leaseToken;
  foreignToken = (await createAndStart(wire, alice, other, 'update', { dryRun: false })).leaseToken;
  ok(await wire.call('POST', '/api/orgs/acme/hooks', { auth: { token: alice }, body: HOOK }), 201);
  ok(await wire.call('POST', `${stackPath(dev)}/hooks`, { auth: { token: alice }, body: HOOK }), 201);
  before = await snapshot();
});

afterAll(async () => {
  wire?.close();
  await serve?.stop();
});

describe('authorization of every route', () => {
  const routes = API_ROUTES.map((route) => ({ name: `${route.method} ${route.path}`, route }));

  it.each(routes)('$name refuses wrong credentials', async ({ route }) => {
    const path = concretePath(route.path);
    const body = bodyFor(route.method, route.path);
    const call = (auth: Auth) => wire.call(route.method, path, { auth, body });
    const expectStatus = async (auth: Auth, status: number, label: string) => {
      const response = await call(auth);
      expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBe(status);
      if (route.method !== 'HEAD' && status >= 400) failed(response, status);
    };

    await expectStatus(undefined, 401, 'no credentials');
    if (LEASE_ROUTE.test(route.path)) {
      await expectStatus({ token: alice }, 401, 'an API token instead of the update token');
      await expectStatus({ updateToken: 'not-a-lease-token' }, 403, 'an unknown update token');
      await expectStatus({ updateToken: staleToken }, 403, 'the token of a completed update');
      await expectStatus({ updateToken: foreignToken }, 403, "another stack's live update token");
      return;
    }
    await expectStatus({ token: 'not-a-token' }, 401, 'an unknown API token');
    await expectStatus({ updateToken: liveToken }, 401, 'an update token on an API-token route');
    const outsider = route.path.startsWith('/api/stacks/') ? 404 : OUTSIDER_STATUS[`${route.method} ${route.path}`];
    expect(outsider, `no outsider expectation for ${route.method} ${route.path}`).toBeDefined();
    await expectStatus({ token: bob }, outsider!, 'a user outside the organization');
  });

  it('an outsider lists none of the organization\'s stacks', async () => {
    const listed = ok(await wire.call('GET', '/api/user/stacks', { auth: { token: bob } }));

    expect(listed.stacks.filter((s: { orgName: string }) => s.orgName === 'acme')).toEqual([]);
  });

  it('changed nothing: state, history, tokens and the live update are as before', async () => {
    const after = await snapshot();

    expect(after).toEqual(before);
    const renewed = ok(await wire.call('POST', `${stackPath(dev)}/update/${liveUpdateId}/renew_lease`, { auth: { updateToken: liveToken }, body: { token: '', duration: 300 } }));
    expect(renewed.token).toMatch(/\S/);
    expect(ok(await wire.call('GET', stackPath(dev), { auth: { token: alice } })).activeUpdate).toBe(liveUpdateId);
  });
});
