import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../ports/audit-store.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, PermissionDeniedError, UnavailableError, UnauthorizedError } from '../errors.js';
import type { StackRef } from '../names.js';
import { createHookService } from '../hooks/hook-service.js';
import { createServices } from '../compose/create-services.js';
import { serviceFixture, START_TIME, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';
import { createUpdateService } from '../updates/update-service.js';
import { AUDIT_INTENT_GRACE_MS, listAudit } from './audit.js';

/** A pid no process has: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString('utf8'));
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function rewritePid(dataDir: string, entry: AuditEntry, pid: number): Promise<void> {
  const path = join(dataDir, 'audit-intents', entry.org, `${entry.id}.json`);
  const stored = JSON.parse(await readFile(path, 'utf8')) as { owner: Record<string, unknown> };
  await writeFile(path, JSON.stringify({ ...stored, owner: { ...stored.owner, pid, start: undefined } }));
}

const ref: StackRef = { org: 'acme', project: 'web', stack: 'prod' };
const REQUEST = { id: 'req-1', sourceIp: '203.0.113.7', userAgent: 'pulumi-cli/1 (3.200.0; linux)' };
const PLAINTEXT = 'plaintext-that-must-never-be-logged';
const HOOK_SECRET = 'hook-signing-secret-value';

describe('the audit log', () => {
  let fx: ServiceFixture;
  let alice: Principal;
  let aliceToken: string;

  beforeEach(async () => {
    fx = await serviceFixture();
    await fx.identity.createOrg(fx.admin, 'acme');
    await fx.identity.createUser(fx.admin, { login: 'alice' });
    await fx.identity.addMember(fx.admin, 'acme', 'alice', 'admin');
    aliceToken = (await fx.identity.createToken(fx.admin, { login: 'alice', description: 'laptop' })).token;
    alice = await fx.identity.authenticate(aliceToken, REQUEST);
  });

  afterEach(async () => {
    await fx.close();
  });

  async function all(org: string): Promise<AuditEntry[]> {
    return (await fx.storage.audit.list({ org, limit: 1000 })).entries;
  }

  it('records each audited action once, with the actor, token id, request id, source address and user agent', async () => {
    // Arrange
    const updates = createUpdateService(fx.deps);
    const hooks = createHookService(fx.deps);

    // Act
    await fx.stacks.create(alice, ref);
    await fx.stacks.setTags(alice, ref, { 'pulumi:project': 'web', team: 'blue' });
    const [ciphertext] = await fx.secrets.encrypt(alice, ref, [Buffer.from(PLAINTEXT)]);
    await fx.secrets.decrypt(alice, ref, [ciphertext!]);
    const { updateId } = await updates.create(alice, ref, { kind: 'update', dryRun: false });
    await updates.start(alice, ref, updateId, {});
    await updates.cancel(alice, ref, updateId);
    await fx.access.createTeam(alice, 'acme', 'ops');
    await fx.access.setStackGrant(alice, ref, { team: 'ops' }, 'write');
    await hooks.add(alice, { org: 'acme' }, { name: 'ci', url: 'https://ci.example.com/hook', secret: HOOK_SECRET });
    const orgToken = await fx.access.createOrgToken(alice, 'acme', { description: 'automation' });
    await fx.access.revokeOrgToken(alice, 'acme', orgToken.record.id);
    await fx.stacks.rename(alice, ref, { project: 'web', stack: 'production' });
    await fx.stacks.remove(alice, { ...ref, stack: 'production' }, true);

    // Assess
    // The fixture's clock stands still, so entries of the same millisecond are in no particular order.
    const entries = (await all('acme')).filter((e) => e.actor === 'alice');
    expect(entries.map((e) => e.event).sort()).toEqual([
      'stack.created',
      'stack.tags-changed',
      'secret.decrypted',
      'update.started',
      'update.cancelled',
      'team.created',
      'stack.permission-changed',
      'hook.created',
      'token.created',
      'token.revoked',
      'stack.renamed',
      'stack.deleted',
    ].sort());
    for (const entry of entries) {
      expect(entry).toMatchObject({ org: 'acme', actor: 'alice', tokenId: alice.token!.id, requestId: 'req-1', sourceIp: '203.0.113.7', userAgent: REQUEST.userAgent });
      expect(entry.outcome).toBeUndefined();
    }
    expect(entries.find((e) => e.event === 'update.cancelled')?.description).toContain(`cancelled update ${updateId} of acme/web/prod`);
  });

  it('never holds a token, a secret or a plaintext', async () => {
    await fx.stacks.create(alice, ref);
    const [ciphertext] = await fx.secrets.encrypt(alice, ref, [Buffer.from(PLAINTEXT)]);
    await fx.secrets.decrypt(alice, ref, [ciphertext!]);
    await createHookService(fx.deps).add(alice, { stack: ref }, { name: 'ci', url: 'https://ci.example.com/hook', secret: HOOK_SECRET });
    const personal = await fx.identity.createToken(alice, { description: 'ci' });
    const team = await fx.access.createTeam(alice, 'acme', 'ops').then(() => fx.access.createOrgToken(alice, 'acme', { description: 'ci', team: 'ops' }));
    await expect(fx.identity.authenticate(`${aliceToken}x`, REQUEST)).rejects.toBeInstanceOf(UnauthorizedError);

    const text = JSON.stringify([...(await all('acme')), ...(await all('alice')), ...(await all(''))]);

    for (const secret of [PLAINTEXT, HOOK_SECRET, aliceToken, personal.token, team.token, Buffer.from(PLAINTEXT).toString('base64')]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain(personal.record.id);
  });

  it('records authentication failures: unknown tokens in the site log, expired ones in their organization', async () => {
    const expiring = await fx.access.createOrgToken(alice, 'acme', { description: 'short', expiresInMs: 1_000 });
    fx.advance(2_000);

    await expect(fx.identity.authenticate('sy_not-a-real-token', REQUEST)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(fx.identity.authenticate(expiring.token, REQUEST)).rejects.toBeInstanceOf(UnauthorizedError);

    expect((await all('')).filter((e) => e.event === 'auth.failed')).toEqual([
      expect.objectContaining({ actor: 'anonymous', sourceIp: '203.0.113.7', requestId: 'req-1', description: 'unknown or revoked access token' }),
    ]);
    expect((await all('acme')).filter((e) => e.event === 'auth.failed')).toEqual([
      expect.objectContaining({ actor: 'acme.org', tokenId: expiring.record.id, description: `expired access token ${expiring.record.id}` }),
    ]);
  });

  it('tallies refused sign-ins per source, route and minute: a flood writes one record a minute, with its count', async () => {
    const expiring = await fx.access.createOrgToken(alice, 'acme', { description: 'short', expiresInMs: 1_000 });
    const other = await fx.access.createOrgToken(alice, 'acme', { description: 'other', expiresInMs: 1_000 });
    fx.advance(60_000 - ((fx.deps.now() - START_TIME) % 60_000));
    const minuteStart = fx.deps.now();
    const from = (sourceIp: string, route: string, n: number) => ({ id: `req-${n}`, sourceIp, userAgent: `flood/${n}`, route });
    const refused = (token: string, request: ReturnType<typeof from>) =>
      expect(fx.identity.authenticate(token, request)).rejects.toBeInstanceOf(UnauthorizedError);

    for (let n = 0; n < 40; n += 1) {
      await refused(`sy_guess-${n}`, from('203.0.113.9', 'GET /api/user', n));
      fx.advance(1_000);
    }
    await refused('sy_guess-x', from('203.0.113.9', 'GET /api/user/stacks', 40));
    await refused('sy_guess-y', from('198.51.100.4', 'GET /api/user', 41));
    await refused(expiring.token, from('203.0.113.9', 'GET /api/user', 42));
    await refused(other.token, from('203.0.113.9', 'GET /api/user', 43));
    await refused(expiring.token, from('203.0.113.9', 'GET /api/user', 44));
    fx.advance(20_000);
    await refused('sy_guess-z', from('203.0.113.9', 'GET /api/user', 45));

    const site = (await all('')).filter((e) => e.event === 'auth.failed' && e.time >= minuteStart);
    expect(site).toHaveLength(4);
    expect(site.find((e) => e.count === 40)).toMatchObject({
      actor: 'anonymous',
      sourceIp: '203.0.113.9',
      route: 'GET /api/user',
      requestId: 'req-0',
      userAgent: 'flood/0',
      time: minuteStart,
      lastSeen: minuteStart + 39_000,
      description: 'unknown or revoked access token',
    });
    expect(site.filter((e) => e.count === 1).map((e) => [e.sourceIp, e.route, e.requestId]).sort()).toEqual([
      ['198.51.100.4', 'GET /api/user', 'req-41'],
      ['203.0.113.9', 'GET /api/user', 'req-45'],
      ['203.0.113.9', 'GET /api/user/stacks', 'req-40'],
    ]);
    const owners = (await all('acme')).filter((e) => e.event === 'auth.failed' && e.time >= minuteStart);
    expect(owners.map((e) => [e.tokenId, e.count]).sort()).toEqual([[expiring.record.id, 2], [other.record.id, 1]].sort());
  });

  it('stores the intent before acting: an action whose intent cannot be stored does not happen; one that fails in an outage is recorded as unknown', async () => {
    // Arrange: the same services over storage whose audit log refuses writes, then whose stack deletes fail.
    await fx.stacks.create(alice, ref);
    const override = <T extends object>(store: T, changes: Partial<T>): T => Object.assign(Object.create(store) as T, changes);
    const refusing = createServices({ ...fx.storage, audit: override(fx.storage.audit, { begin: async () => Promise.reject(new UnavailableError('audit log down')) }) }, { now: fx.deps.now });
    const failing = createServices({ ...fx.storage, stacks: override(fx.storage.stacks, { delete: async () => Promise.reject(new UnavailableError('table down')) }) }, { now: fx.deps.now });

    // Act
    await expect(refusing.stacks.remove(alice, ref, true)).rejects.toThrow('audit log down');
    const stillThere = await fx.stacks.get(alice, ref);
    await expect(failing.stacks.remove(alice, ref, true)).rejects.toThrow('table down');

    // Assess
    expect(stillThere.stack).toBe('prod');
    expect((await all('acme')).filter((e) => e.event === 'stack.deleted').map((e) => e.outcome)).toEqual(['unknown']);
  });

  it('leaves the log unchanged when an action is refused after authorization (name taken, unknown token, tampered ciphertext)', async () => {
    // Arrange
    await fx.stacks.create(alice, ref);
    const [ciphertext] = await fx.secrets.encrypt(alice, ref, [Buffer.from(PLAINTEXT)]);
    const tampered = Buffer.from(ciphertext!);
    tampered[tampered.length - 1] ^= 0xff;
    const before = await fx.snapshot();

    // Act
    await expect(fx.stacks.create(alice, ref)).rejects.toBeInstanceOf(ConflictError);
    await expect(fx.access.revokeOrgToken(alice, 'acme', 'no-such-token')).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.secrets.decrypt(alice, ref, [tampered])).rejects.toThrow();
    await expect(fx.access.createTeam(alice, 'acme', 'Not A Team Name!')).rejects.toBeInstanceOf(InvalidInputError);

    // Assess
    expect(await fx.snapshot()).toEqual(before);
  });

  it('records exactly one entry for grants written concurrently', async () => {
    // Arrange
    await fx.stacks.create(alice, ref);
    const logins = ['user1', 'user2', 'user3', 'user4', 'user5', 'user6'];
    for (const login of logins) await fx.user(login, ['acme']);

    // Act
    await Promise.all(logins.map((login) => fx.access.setStackGrant(alice, ref, { user: login }, 'read')));

    // Assess
    const grants = (await all('acme')).filter((e) => e.event === 'stack.permission-changed');
    expect(grants.map((e) => e.description).sort()).toEqual(logins.map((login) => `gave 'read' to user:${login} on acme/web/prod`).sort());
    expect(grants.every((e) => e.outcome === undefined)).toBe(true);
  });

  it('publishes the entry of a request that died midway: at once when its process is gone, otherwise after the grace period', async () => {
    // Arrange: intents as a request leaves them when it dies between storing its intent and its commit.
    await fx.stacks.create(alice, ref);
    const entry = (event: string, pid: number): { entry: AuditEntry; pid: number } => ({
      entry: { id: `${START_TIME}-${randomBytes(8).toString('hex')}`, org: 'acme', time: START_TIME, event, actor: 'alice', description: event },
      pid,
    });
    const dead = entry('stack.deleted', deadPid());
    const live = entry('stack.renamed', process.pid);
    for (const intent of [dead, live]) {
      await fx.storage.audit.begin({ entry: intent.entry, deadline: START_TIME + AUDIT_INTENT_GRACE_MS });
      await rewritePid(fx.dataDir, intent.entry, intent.pid);
    }

    // Act
    const atOnce = await listAudit(fx.deps, alice, 'acme', {});
    fx.advance(AUDIT_INTENT_GRACE_MS + 1);
    const later = await listAudit(fx.deps, alice, 'acme', {});

    // Assess
    expect(atOnce.entries.filter((e) => e.outcome === 'unknown').map((e) => e.event)).toEqual(['stack.deleted']);
    expect(later.entries.filter((e) => e.outcome === 'unknown').map((e) => e.event).sort()).toEqual(['stack.deleted', 'stack.renamed']);
  });

  it('records authorization refusals (authz.denied) once, in the log of the organization concerned', async () => {
    // Arrange: the services as the API builds them (createServices records denials).
    const services = createServices(fx.storage, { now: fx.deps.now });
    await services.stacks.create(alice, ref);
    const member = await fx.user('member', ['acme']);
    const viewer = await fx.user('viewer', ['acme'], 'viewer');

    // Act
    await expect(services.stacks.remove(member, ref, true)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(services.audit.list(viewer, 'acme', {})).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(services.identity.createUser(member, { login: 'mallory' })).rejects.toBeInstanceOf(PermissionDeniedError);

    // Assess
    const denied = (await all('acme')).filter((e) => e.event === 'authz.denied');
    expect(denied.map((e) => [e.actor, e.target]).sort()).toEqual([['member', 'delete acme/web/prod'], ['viewer', 'read-audit-log']]);
    expect((await all('')).filter((e) => e.event === 'authz.denied').map((e) => [e.actor, e.target])).toEqual([['member', 'administer']]);
  });

  it('records update completion by the update token as the requester, with the lease token id', async () => {
    // Arrange
    const updates = createUpdateService(fx.deps);
    await fx.stacks.create(alice, ref);
    const { updateId } = await updates.create(alice, ref, { kind: 'update', dryRun: false });
    const { token } = await updates.start(alice, ref, updateId, {});

    // Act
    await updates.complete(ref, updateId, token, 'succeeded', { id: 'req-9', sourceIp: '198.51.100.4' });
    await updates.complete(ref, updateId, token, 'succeeded');

    // Assess: one entry, though the completion was repeated with the same token.
    const completed = (await all('acme')).filter((e) => e.event === 'update.completed');
    expect(completed).toEqual([
      expect.objectContaining({ actor: 'alice', tokenId: expect.stringMatching(/^update-[0-9a-f]{16}$/), requestId: 'req-9', sourceIp: '198.51.100.4', description: `update ${updateId} of acme/web/prod succeeded` }),
    ]);
    expect(JSON.stringify(completed)).not.toContain(token);
  });

  it('records hook pings and redeliveries, and console sign-ins, sign-outs and refused login codes', async () => {
    // Arrange: a hook whose receiver refuses connections (the attempt fails; the ping happened all the same).
    const services = createServices(fx.storage, { now: fx.deps.now, hooks: { allowPrivate: true } });
    await services.stacks.create(alice, ref);
    await services.hooks.add(alice, { stack: ref }, { name: 'ci', url: `http://127.0.0.1:${await closedPort()}/hook` });

    // Act
    const ping = await services.hooks.ping(alice, { stack: ref }, 'ci');
    await services.hooks.redeliver(alice, { stack: ref }, 'ci', ping.id);
    const session = await services.console.signInWithToken(aliceToken, REQUEST);
    await services.console.signOut(session.sessionId, alice);
    await services.console.signOut(session.sessionId, alice);
    await expect(services.console.signInWithCode('not-a-code', REQUEST)).rejects.toBeInstanceOf(UnauthorizedError);

    // Assess
    const events = (await all('acme')).map((e) => e.event);
    expect(events.filter((e) => e.startsWith('hook.')).sort()).toEqual(['hook.created', 'hook.pinged', 'hook.redelivered']);
    const console = (await all('alice')).filter((e) => e.event.startsWith('console.'));
    expect(console.map((e) => e.event).sort()).toEqual(['console.signed-in', 'console.signed-out']);
    for (const entry of console) expect(entry).toMatchObject({ actor: 'alice', tokenId: alice.token!.id, sourceIp: '203.0.113.7' });
    expect(JSON.stringify(console)).not.toContain(session.sessionId);
    expect((await all('')).filter((e) => e.event === 'auth.failed').map((e) => e.description)).toEqual(['invalid, used or expired console login code']);
  });

  it('is readable by organization admins only', async () => {
    // Arrange
    await fx.stacks.create(alice, ref);
    const member = await fx.user('member', ['acme']);
    const viewer = await fx.user('viewer', ['acme'], 'viewer');
    const orgToken = await fx.identity.authenticate((await fx.access.createOrgToken(alice, 'acme', { description: 'ci' })).token);

    // Act / Assess
    expect((await listAudit(fx.deps, alice, 'acme', {})).entries.length).toBeGreaterThan(0);
    for (const reader of [member, viewer, orgToken]) {
      await expect(listAudit(fx.deps, reader, 'acme', {})).rejects.toBeInstanceOf(ForbiddenError);
    }
    await expect(listAudit(fx.deps, alice, '', {})).rejects.toBeInstanceOf(ForbiddenError);
    expect((await listAudit(fx.deps, fx.admin, '', { event: 'user.created' })).entries.map((e) => e.target)).toContain('alice');
  });
});
