import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Services } from '../../shared/core/compose/types.js';
import type { Storage } from '../../shared/ports/index.js';
import { createApi, type ApiHandler } from './api.js';
import type { AccessLogEntry } from './access-log.js';
import type { ConsoleAssets } from './console-assets.js';
import type { HttpRequest, HttpResponse } from './types.js';

const ADMIN_TOKEN = 'sy_console-test-admin';
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };
const assets: ConsoleAssets = {
  index: Buffer.from('<!doctype html><title>Stackyard</title>'),
  files: new Map([['assets/app-ABC.js', Buffer.from('console.log(1)')]]),
};

interface Call {
  token?: string;
  cookie?: string;
  csrf?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

describe('the console API', () => {
  let dataDir: string;
  let storage: Storage;
  let services: Services;
  let api: ApiHandler;
  let clock: number;
  let aliceToken: string;
  let malloryToken: string;
  let accessLog: AccessLogEntry[];

  async function call(method: string, path: string, options: Call = {}): Promise<HttpResponse & { json: any }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `token ${options.token}`;
    if (options.cookie) headers.cookie = `theme=dark; stackyard-session=${options.cookie}`;
    if (options.csrf) headers['x-stackyard-csrf'] = options.csrf;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const [pathname, query = ''] = path.split('?');
    const request: HttpRequest = {
      method,
      path: pathname!,
      headers,
      query: new URLSearchParams(query),
      body: options.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(options.body)),
      requestId: 'test',
    };
    const response = await api(request);
    const text = response.body.toString('utf8');
    return { ...response, json: response.headers['content-type']?.includes('json') && text ? JSON.parse(text) : undefined };
  }

  async function signIn(token: string, headers: Record<string, string> = {}): Promise<{ cookie: string; csrf: string; setCookie: string }> {
    const response = await call('POST', '/api/console/sessions', { body: { token }, headers });
    expect(response.status).toBe(200);
    const setCookie = response.headers['set-cookie']!;
    return { cookie: /stackyard-session=([^;]+)/.exec(setCookie)![1]!, csrf: response.json.csrfToken, setCookie };
  }

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-console-api-'));
    clock = Date.parse('2026-11-01T10:00:00Z');
    storage = await createLocalStorage({ dataDir, now: () => clock });
    services = createServices(storage, { now: () => clock, serviceUrl: 'http://127.0.0.1:1' });
    accessLog = [];
    api = createApi({ services, logger: silent, consoleAssets: assets, accessLog: (entry) => accessLog.push(entry) });
    await services.identity.ensureAdmin('admin', ADMIN_TOKEN);
    const admin = await services.identity.authenticate(ADMIN_TOKEN);
    await services.identity.createOrg(admin, 'acme');
    for (const login of ['alice', 'mallory']) await services.identity.createUser(admin, { login });
    await services.identity.addMember(admin, 'acme', 'alice', 'member');
    aliceToken = (await services.identity.createToken(admin, { login: 'alice', description: 'test' })).token;
    malloryToken = (await services.identity.createToken(admin, { login: 'mallory', description: 'test' })).token;
    await services.stacks.create(await services.identity.authenticate(aliceToken), { org: 'acme', project: 'web', stack: 'dev' });
  });

  afterEach(async () => {
    await storage.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('signs in with a token: an HttpOnly, SameSite=Strict cookie, Secure only over https, and no token in it', async () => {
    const plain = await signIn(aliceToken);
    const secure = await signIn(aliceToken, { 'x-forwarded-proto': 'https' });

    expect(plain.setCookie).toMatch(/^stackyard-session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(plain.setCookie).not.toContain(aliceToken);
    expect(secure.setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    const session = await call('GET', '/api/console/session', { cookie: plain.cookie });
    expect(session.json).toEqual({ login: 'alice', admin: false, orgs: [{ name: 'acme', role: 'member' }, { name: 'alice', role: 'admin' }], csrfToken: plain.csrf });
  });

  it('refuses bad sign-ins and forms: wrong token 401, non-JSON 400, nothing stored', async () => {
    const wrong = await call('POST', '/api/console/sessions', { body: { token: 'sy_nope' } });
    const form = await call('POST', '/api/console/sessions', { body: { token: aliceToken }, headers: { 'content-type': 'text/plain' } });

    expect(wrong.status).toBe(401);
    expect(form.status).toBe(400);
    expect(form.headers['set-cookie']).toBeUndefined();
    expect(await fs.readdir(join(dataDir, 'console', 'sessions')).catch(() => [])).toEqual([]);
  });

  it('lets a session read, refuses a change without the CSRF token, and accepts it with one', async () => {
    const { cookie, csrf } = await signIn(aliceToken);

    const stacks = await call('GET', '/api/user/stacks', { cookie });
    const forged = await call('PATCH', '/api/stacks/acme/web/dev/tags', { cookie, body: { team: 'evil' } });
    const wrongCsrf = await call('PATCH', '/api/stacks/acme/web/dev/tags', { cookie, csrf: 'x'.repeat(43), body: { team: 'evil' } });
    const tagsAfterForgery = (await call('GET', '/api/stacks/acme/web/dev', { cookie })).json.tags;
    const genuine = await call('PATCH', '/api/stacks/acme/web/dev/tags', { cookie, csrf, body: { team: 'web' } });

    expect(stacks.json.stacks.map((s: { stackName: string }) => s.stackName)).toEqual(['dev']);
    expect(accessLog.find((entry) => entry.route === 'GET /api/user/stacks')).toMatchObject({ principal: 'alice', credential: 'console-session' });
    expect(JSON.stringify(accessLog)).not.toContain(cookie);
    expect([forged.status, wrongCsrf.status]).toEqual([403, 403]);
    expect(tagsAfterForgery).not.toHaveProperty('team');
    expect(genuine.status).toBe(200);
    expect((await call('GET', '/api/stacks/acme/web/dev', { cookie })).json.tags).toMatchObject({ team: 'web' });
  });

  it('signs out on the server: the old cookie is refused afterwards', async () => {
    const { cookie, csrf } = await signIn(aliceToken);

    const forgedSignOut = await call('DELETE', '/api/console/session', { cookie });
    const signOut = await call('DELETE', '/api/console/session', { cookie, csrf });
    const after = await call('GET', '/api/user/stacks', { cookie });

    expect(forgedSignOut.status).toBe(403);
    expect(signOut.status).toBe(200);
    expect(signOut.headers['set-cookie']).toMatch(/^stackyard-session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
    expect(after.status).toBe(401);
  });

  it('acts with the token it was opened with: an organization token sees its organization, and revoking it ends the session', async () => {
    const orgToken = await call('POST', '/api/orgs/acme/tokens', { token: ADMIN_TOKEN, body: { description: 'automation' } });
    const asOrg = await signIn(orgToken.json.tokenValue);
    const asAlice = await signIn(aliceToken);
    const aliceTokenId = (await call('GET', '/api/user/tokens', { token: aliceToken })).json.tokens[0].id;

    const orgStacks = await call('GET', '/api/console/orgs/acme/stacks', { cookie: asOrg.cookie });
    await call('DELETE', `/api/user/tokens/${aliceTokenId}`, { token: aliceToken });
    const afterRevoke = await call('GET', '/api/console/session', { cookie: asAlice.cookie });

    expect(orgStacks.json.stacks.map((s: { stack: string }) => s.stack)).toEqual(['dev']);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.json.message).toMatch(/token it was opened with was revoked/);
  });

  it('expires a session on the server after 12 hours', async () => {
    const { cookie } = await signIn(aliceToken);

    clock += 12 * 60 * 60 * 1000;

    expect((await call('GET', '/api/console/session', { cookie })).status).toBe(401);
  });

  it('exchanges a login code once, within 60 seconds, for a session that opens the stack page', async () => {
    const made = await call('POST', '/api/console/login-codes', { token: aliceToken, body: { path: '/acme/web/dev' } });
    const late = await call('POST', '/api/console/login-codes', { token: aliceToken, body: { path: '/acme/web/dev' } });

    const first = await call('POST', '/api/console/sessions', { body: { code: made.json.code } });
    const again = await call('POST', '/api/console/sessions', { body: { code: made.json.code } });
    clock += 60_000;
    const expired = await call('POST', '/api/console/sessions', { body: { code: late.json.code } });

    expect(made.json.expiresAt).toBe(clock);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ login: 'alice', next: '/acme/web/dev' });
    expect([again.status, expired.status]).toEqual([401, 401]);
    expect((await call('POST', '/api/console/login-codes', { token: aliceToken, body: { path: 'https://evil.example/' } })).status).toBe(400);
    expect((await call('POST', '/api/console/login-codes', { token: aliceToken, body: { path: '//evil.example/' } })).status).toBe(400);
  });

  it('shows a stack to members only: another organization gets 404 from every console read', async () => {
    const { cookie } = await signIn(malloryToken);

    const reads = await Promise.all([
      call('GET', '/api/console/orgs/acme/stacks', { cookie }),
      call('GET', '/api/console/stacks/acme/web/dev', { cookie }),
      call('GET', '/api/stacks/acme/web/dev/updates/1', { cookie }),
      call('GET', '/api/stacks/acme/web/dev/export', { cookie }),
    ]);

    expect(reads.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect((await call('GET', '/api/console/orgs/acme/stacks', { token: aliceToken })).json.stacks).toHaveLength(1);
  });

  it('shows the lease holder while an update runs, its events page by page, and who cancelled it', async () => {
    const alice = await services.identity.authenticate(aliceToken);
    const ref = { org: 'acme', project: 'web', stack: 'dev' };
    const { updateId } = await services.updates.create(alice, ref, { kind: 'update', dryRun: false });
    const started = await services.updates.start(alice, ref, updateId, {});
    await services.updates.recordEvents(ref, updateId, started.token, [
      { sequence: 0, timestamp: 1, preludeEvent: { config: {} } },
      { sequence: 1, timestamp: 1, stdoutEvent: { message: 'hello' } },
    ]);

    const running = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    const byVersion = await call('GET', '/api/stacks/acme/web/dev/updates/1', { token: aliceToken });
    const firstPage = await call('GET', `/api/stacks/acme/web/dev/update/${updateId}/events`, { token: aliceToken });
    await services.updates.recordEvents(ref, updateId, started.token, [{ sequence: 2, timestamp: 2, cancelEvent: {} }]);
    const bob = await signIn(aliceToken);
    await call('POST', `/api/stacks/acme/web/dev/update/${updateId}/cancel`, { cookie: bob.cookie, csrf: bob.csrf });
    const nextPage = await call('GET', `/api/stacks/acme/web/dev/update/${updateId}/events?continuationToken=${firstPage.json.continuationToken}`, { token: aliceToken });
    const ended = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    const history = await call('GET', '/api/stacks/acme/web/dev/updates', { token: aliceToken });

    expect(running.json.lease).toMatchObject({ updateId, holder: 'alice', kind: 'update', since: clock });
    expect(byVersion.json).toMatchObject({ updateID: updateId, status: 'in-progress', requestedBy: 'alice' });
    expect(firstPage.json).toEqual({ events: [expect.objectContaining({ sequence: 0 }), expect.objectContaining({ sequence: 1 })], continuationToken: '1' });
    expect(nextPage.json).toEqual({ events: [expect.objectContaining({ sequence: 2 })] });
    expect(ended.json.lease).toBeUndefined();
    expect(ended.json.lastUpdate).toMatchObject({ version: 1, status: 'cancelled', cancelledBy: 'alice', requestedBy: 'alice' });
    expect(history.json.updates[0]).toMatchObject({ version: 1, result: 'failed', cancelledBy: 'alice' });
  });

  it("gives the caller's permission on the stack, so the page offers reveal and cancel only to writers", async () => {
    const admin = await services.identity.authenticate(ADMIN_TOKEN);
    await services.identity.createUser(admin, { login: 'victor' });
    await services.identity.addMember(admin, 'acme', 'victor', 'viewer');
    const viewerToken = (await services.identity.createToken(admin, { login: 'victor', description: 'test' })).token;

    const asViewer = await call('GET', '/api/console/stacks/acme/web/dev', { token: viewerToken });
    const asCreator = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    const listed = await call('GET', '/api/console/orgs/acme/stacks', { token: viewerToken });

    expect([asViewer.json.permission, asCreator.json.permission]).toEqual(['read', 'admin']);
    expect(listed.json.stacks).toEqual([expect.objectContaining({ stack: 'dev', permission: 'read' })]);
  });

  it('says an update abandoned by its client was abandoned, before a start records it and after, in history and by version', async () => {
    const alice = await services.identity.authenticate(aliceToken);
    const ref = { org: 'acme', project: 'web', stack: 'dev' };
    const killed = await services.updates.create(alice, ref, { kind: 'update', dryRun: false });
    await services.updates.start(alice, ref, killed.updateId, {});
    clock += 60 * 60 * 1000;
    // Before anything records it, reads say it was abandoned (and change nothing).
    const unrecorded = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    const unrecordedById = await call('GET', `/api/stacks/acme/web/dev/updates/${killed.updateId}`, { token: aliceToken });
    const unrecordedByVersion = await call('GET', '/api/stacks/acme/web/dev/updates/1', { token: aliceToken });
    const events = await call('GET', `/api/stacks/acme/web/dev/update/${killed.updateId}/events`, { token: aliceToken });
    expect(unrecorded.json).toMatchObject({ version: 0, abandonedUpdate: { updateId: killed.updateId, status: 'in-progress' } });
    expect(unrecorded.json.lease).toBeUndefined();
    expect(unrecordedById.json).toMatchObject({ status: 'in-progress', abandoned: true });
    expect(unrecordedByVersion.json).toMatchObject({ updateID: killed.updateId, abandoned: true });
    expect(events.json).toEqual({ events: [] });
    const next = await services.updates.create(alice, ref, { kind: 'update', dryRun: false });

    await services.updates.start(alice, ref, next.updateId, {});

    const running = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    expect(running.json.abandonedUpdate).toBeUndefined();
    expect((await call('GET', `/api/stacks/acme/web/dev/updates/${next.updateId}`, { token: aliceToken })).json.abandoned).toBeUndefined();
    const history = await call('GET', '/api/stacks/acme/web/dev/updates', { token: aliceToken });
    const byVersion = await call('GET', '/api/stacks/acme/web/dev/updates/1', { token: aliceToken });
    const overview = await call('GET', '/api/console/stacks/acme/web/dev', { token: aliceToken });
    expect(history.json.updates).toEqual([expect.objectContaining({ updateID: killed.updateId, version: 1, result: 'failed', endReason: 'lease-expired' })]);
    expect(byVersion.json).toMatchObject({ updateID: killed.updateId, status: 'failed', endReason: 'lease-expired' });
    expect(overview.json.lastUpdate).toMatchObject({ version: 1, status: 'failed', endReason: 'lease-expired' });
  });

  it('serves the console page for any path outside /api/, assets by name, and 404s for the rest', async () => {
    const page = await call('GET', '/acme/web/dev/updates/3');
    const asset = await call('GET', '/assets/app-ABC.js');
    const missingAsset = await call('GET', '/assets/app-OLD.js');
    const unknownApi = await call('GET', '/api/nothing');
    const post = await call('POST', '/acme');

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(asset.headers['cache-control']).toContain('immutable');
    expect([missingAsset.status, unknownApi.status, post.status]).toEqual([404, 404, 404]);
    expect(unknownApi.json.code).toBe(404);
  });
});
