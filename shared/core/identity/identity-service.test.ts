import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, UnauthorizedError } from '../errors.js';
import { API_TOKEN_PREFIX, hashApiToken } from './identity-service.js';
import { ADMIN_TOKEN, START_TIME, serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await serviceFixture();
});

afterEach(async () => {
  await fx.close();
});

describe('IdentityService.authenticate', () => {
  it('resolves a token to its user, with the personal organization and memberships', async () => {
    // Prepare
    await fx.identity.createUser(fx.admin, { login: 'alice' });
    await fx.identity.createOrg(fx.admin, 'acme');
    await fx.identity.addMember(fx.admin, 'acme', 'alice', 'member');
    const { token, record } = await fx.identity.createToken(fx.admin, { login: 'alice', description: 'ci' });

    // Act
    const principal = await fx.identity.authenticate(token);

    // Assess
    expect(principal).toMatchObject({ login: 'alice', orgs: ['acme', 'alice'], admin: false, roles: { acme: 'member', alice: 'admin' } });
    expect(principal.token).toMatchObject({ id: record.id, kind: 'personal' });
    expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    expect(record.tokenHash).toBe(hashApiToken(token));
    expect(JSON.stringify(await fx.snapshot())).not.toContain(token);
  });

  it('refuses unknown, malformed, revoked and expired tokens with 401', async () => {
    const alice = await fx.user('alice');
    const { token: revoked, record } = await fx.identity.createToken(alice, { description: 'old' });
    await fx.identity.revokeToken(alice, record.id);
    const { token: shortLived } = await fx.identity.createToken(alice, { description: 'short', expiresInMs: 1000 });
    await expect(fx.identity.authenticate(shortLived)).resolves.toMatchObject({ login: 'alice' });

    fx.advance(1000);

    for (const token of ['', 'sy_nope', revoked, shortLived, 'x'.repeat(5000)]) {
      await expect(fx.identity.authenticate(token)).rejects.toBeInstanceOf(UnauthorizedError);
    }
  });

  it('says when an expired token expired, and nothing of the kind for an unknown one', async () => {
    const alice = await fx.user('alice');
    const { token } = await fx.identity.createToken(alice, { description: 'short', expiresInMs: 60_000 });
    fx.advance(120_000);

    // Both refusals are caught as they happen: one left unobserved while the other is awaited is an unhandled rejection.
    const [expired, unknown] = await Promise.allSettled([fx.identity.authenticate(token), fx.identity.authenticate('sy_nope')]);

    expect(expired).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining(`The access token expired at ${new Date(START_TIME + 60_000).toISOString()}`) } });
    expect(unknown).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('The access token is not valid (unknown, revoked or expired)') } });
  });

  it('records a token’s last use once a minute, asking storage only when it is due', async () => {
    const alice = await fx.user('alice');
    const { token, record } = await fx.identity.createToken(alice, { description: 'ci' });
    const touchToken = fx.storage.identity.touchToken.bind(fx.storage.identity);
    let touches = 0;
    fx.storage.identity.touchToken = (...args) => ((touches += 1), touchToken(...args));
    const lastUsed = async () => (await fx.identity.listTokens(alice)).find((t) => t.id === record.id)?.lastUsedAt;
    const authenticateTogether = () => Promise.all(Array.from({ length: 10 }, () => fx.identity.authenticate(token)));

    await authenticateTogether();
    expect([touches, await lastUsed()]).toEqual([1, START_TIME]);

    fx.advance(30_000);
    await authenticateTogether();
    expect([touches, await lastUsed()]).toEqual([1, START_TIME]);

    fx.advance(30_000);
    await authenticateTogether();
    expect([touches, await lastUsed()]).toEqual([2, START_TIME + 60_000]);
  });

  it('lists and revokes only the caller’s own tokens unless an administrator asks', async () => {
    const alice = await fx.user('alice');
    const bob = await fx.user('bob');
    const { record } = await fx.identity.createToken(alice, { description: 'laptop' });
    const before = await fx.snapshot();

    await expect(fx.identity.listTokens(bob, 'alice')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(fx.identity.revokeToken(bob, record.id, 'alice')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(fx.identity.createToken(bob, { login: 'alice', description: 'x' })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(fx.identity.revokeToken(bob, record.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await fx.snapshot()).toEqual(before);

    const listed = await fx.identity.listTokens(fx.admin, 'alice');
    expect(listed.map((t) => t.description).sort()).toEqual(['fixture', 'laptop']);
    await fx.identity.revokeToken(fx.admin, record.id, 'alice');
    expect((await fx.identity.listTokens(alice)).map((t) => t.description)).toEqual(['fixture']);
  });
});

describe('IdentityService administration', () => {
  it('refuses admin operations to non-administrators with 403 and changes nothing', async () => {
    const alice = await fx.user('alice');
    const before = await fx.snapshot();

    await expect(fx.identity.createUser(alice, { login: 'mallory' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(fx.identity.createOrg(alice, 'evil-corp')).rejects.toBeInstanceOf(ForbiddenError);

    expect(await fx.snapshot()).toEqual(before);
  });

  it('lets an organization admin add members, but not a plain member or an outsider', async () => {
    const owner = await fx.user('owner');
    await fx.identity.createUser(fx.admin, { login: 'carol' });
    await fx.identity.createUser(fx.admin, { login: 'dave' });
    await fx.identity.createOrg(fx.admin, 'acme');
    await fx.identity.addMember(fx.admin, 'acme', 'owner', 'admin');
    const member = await fx.user('member', ['acme']);
    const outsider = await fx.user('outsider');
    const ownerNow = await fx.identity.authenticate((await fx.identity.createToken(owner, { description: 'x' })).token);

    await fx.identity.addMember(ownerNow, 'acme', 'carol', 'member');
    await expect(fx.identity.addMember(member, 'acme', 'dave', 'member')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(fx.identity.addMember(outsider, 'acme', 'dave', 'member')).rejects.toBeInstanceOf(NotFoundError);
    await expect(fx.identity.addMember(ownerNow, 'acme', 'carol', 'member')).rejects.toThrow(/already a member/);
    await expect(fx.identity.addMember(ownerNow, 'acme', 'nobody', 'member')).rejects.toBeInstanceOf(NotFoundError);

    expect((await fx.identity.listOrgs(owner)).find((o) => o.name === 'acme')).toEqual({ name: 'acme', role: 'admin' });
    expect((await fx.identity.getUser(member)).orgs).toEqual(['acme', 'member']);
    const carol = await fx.identity.authenticate(
      (await fx.identity.createToken(fx.admin, { login: 'carol', description: 'x' })).token,
    );
    expect(carol.orgs).toEqual(['acme', 'carol']);
  });

  it('never creates a user over an existing organization name (it would join that organization)', async () => {
    await fx.identity.createOrg(fx.admin, 'acme');
    const before = await fx.snapshot();

    await expect(fx.identity.createUser(fx.admin, { login: 'acme' })).rejects.toThrow(/already exists/);
    await expect(fx.identity.createUser(fx.admin, { login: 'no' })).rejects.toBeInstanceOf(InvalidInputError);

    expect(await fx.snapshot()).toEqual(before);
    await fx.user('alice');
    await expect(fx.identity.createUser(fx.admin, { login: 'alice' })).rejects.toBeInstanceOf(ConflictError);
    await expect(fx.identity.createOrg(fx.admin, 'alice')).rejects.toBeInstanceOf(ConflictError);
  });

  it('ensureAdmin is idempotent and keeps an existing administrator’s record', async () => {
    fx.advance(60_000);

    await fx.identity.ensureAdmin('admin', ADMIN_TOKEN);
    await Promise.all([fx.identity.ensureAdmin('admin', 'second-token'), fx.identity.ensureAdmin('admin', 'second-token')]);

    expect((await fx.identity.getUser(fx.admin)).createdAt).toBe(START_TIME);
    expect(await fx.identity.authenticate('second-token')).toMatchObject({ login: 'admin', orgs: ['admin'], admin: true, roles: { admin: 'admin' } });
    expect((await fx.identity.listTokens(fx.admin)).length).toBe(2);
    expect(await fx.identity.defaultOrg(fx.admin)).toBe('admin');

    await fx.user('alice');
    const aliceToken = (await fx.identity.listTokens(fx.admin, 'alice'))[0]!;
    expect(aliceToken.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    await expect(fx.identity.ensureAdmin('alice', ADMIN_TOKEN)).rejects.toBeInstanceOf(ConflictError);
  });
});
