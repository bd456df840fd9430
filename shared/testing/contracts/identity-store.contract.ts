import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { OidcPolicyRecord, TokenRecord } from '../../ports/index.js';
import { uniqueId, uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

function login(): string {
  return `u${randomBytes(5).toString('hex')}`;
}

function token(owner: string, extra: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: uniqueId(),
    tokenHash: randomBytes(32).toString('hex'),
    login: owner,
    description: 'ci',
    createdAt: 1,
    ...extra,
  };
}

/** IdentityStore guarantees: create-if-absent users/orgs/members/tokens, NotFound, findToken undefined. */
export function identityStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`IdentityStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('creates users once; putUser overwrites', async () => {
      const l = login();
      const user = { login: l, name: 'Alice', admin: false, createdAt: 1 };
      expect(await env.storage.identity.createUser(user)).toEqual(user);
      await expect(env.storage.identity.createUser({ ...user, name: 'Eve' })).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.identity.getUser(l)).toEqual(user);
      await env.storage.identity.putUser({ ...user, admin: true });
      expect((await env.storage.identity.getUser(l)).admin).toBe(true);
      await expect(env.storage.identity.getUser(login())).rejects.toBeInstanceOf(NotFoundError);
    });

    it('creates orgs once', async () => {
      const org = { name: uniqueOrg(), createdAt: 2 };
      expect(await env.storage.identity.createOrg(org)).toEqual(org);
      await expect(env.storage.identity.createOrg({ ...org, createdAt: 3 })).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.identity.getOrg(org.name)).toEqual(org);
      await expect(env.storage.identity.getOrg(uniqueOrg())).rejects.toBeInstanceOf(NotFoundError);
    });

    it('adds members once and lists memberships sorted by org', async () => {
      const l = login();
      const [o1, o2] = [uniqueOrg(), uniqueOrg()].sort();
      await env.storage.identity.addMember({ org: o2, login: l, role: 'member' });
      await env.storage.identity.addMember({ org: o1, login: l, role: 'admin' });
      await expect(
        env.storage.identity.addMember({ org: o1, login: l, role: 'member' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.identity.listMemberships(l)).toEqual([
        { org: o1, login: l, role: 'admin' },
        { org: o2, login: l, role: 'member' },
      ]);
      expect(await env.storage.identity.listMemberships(login())).toEqual([]);
    });

    it('stores tokens once, finds them by hash, lists and revokes them', async () => {
      const l = login();
      const t1 = token(l);
      const t2 = token(l, { expiresAt: env.clock.now() + 3_600_000 });
      await env.storage.identity.putToken(t1);
      await env.storage.identity.putToken(t2);
      await expect(env.storage.identity.putToken({ ...t1, description: 'x' })).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.identity.findToken(t1.tokenHash)).toEqual(t1);
      expect(await env.storage.identity.findToken(randomBytes(32).toString('hex'))).toBeUndefined();
      const listed = await env.storage.identity.listTokens(l);
      expect(listed.map((t) => t.id).sort()).toEqual([t1.id, t2.id].sort());
      await env.storage.identity.revokeToken(l, t1.id);
      expect(await env.storage.identity.findToken(t1.tokenHash)).toBeUndefined();
      expect((await env.storage.identity.listTokens(l)).map((t) => t.id)).toEqual([t2.id]);
      await expect(env.storage.identity.revokeToken(l, t1.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.identity.revokeToken(login(), t2.id)).rejects.toBeInstanceOf(NotFoundError);
      expect(await env.storage.identity.findToken(t2.tokenHash)).toEqual(t2);
    });

    it('never lists a token that expired, by its own clock, and may remove it; until then it still finds it', async () => {
      const l = login();
      const forever = token(l);
      const expired = token(l, { expiresAt: env.clock.now() - 1 });
      const expiring = token(l, { expiresAt: env.clock.now() + 60_000 });
      for (const t of [forever, expired, expiring]) await env.storage.identity.putToken(t);

      const listed = await env.storage.identity.listTokens(l);
      env.clock.advance(60_000);
      const listedLater = await env.storage.identity.listTokens(l);
      const foundLater = await env.storage.identity.findToken(expiring.tokenHash);

      expect(listed.map((t) => t.id).sort()).toEqual([forever.id, expiring.id].sort());
      expect(listedLater.map((t) => t.id)).toEqual([forever.id]);
      // Found (so authentication can say it expired) or already removed: never a live-looking record.
      expect([undefined, expiring]).toContainEqual(foundLater);
      expect(await env.storage.identity.findToken(forever.tokenHash)).toEqual(forever);
    });

    it('changes and removes roles in one conditional write, and lists an organization\'s members', async () => {
      const org = uniqueOrg();
      const [a, b] = [login(), login()].sort();
      await env.storage.identity.createOrg({ name: org, createdAt: 1 });
      await env.storage.identity.addMember({ org, login: a, role: 'admin' });
      await env.storage.identity.addMember({ org, login: b, role: 'member' });

      await env.storage.identity.setMemberRole(org, b, 'viewer');

      expect(await env.storage.identity.listMembers(org)).toEqual([
        { org, login: a, role: 'admin' },
        { org, login: b, role: 'viewer' },
      ]);
      expect(await env.storage.identity.listMemberships(b)).toEqual([{ org, login: b, role: 'viewer' }]);
      await expect(env.storage.identity.setMemberRole(org, login(), 'admin')).rejects.toBeInstanceOf(NotFoundError);
      await env.storage.identity.removeMember(org, b);
      await expect(env.storage.identity.removeMember(org, b)).rejects.toBeInstanceOf(NotFoundError);
      expect((await env.storage.identity.listMembers(org)).map((m) => m.login)).toEqual([a]);
      expect(await env.storage.identity.listMemberships(b)).toEqual([]);
      await expect(env.storage.identity.setMemberRole(org, b, 'admin')).rejects.toBeInstanceOf(NotFoundError);
      expect(await env.storage.identity.listMemberships(b)).toEqual([]);
    });

    it('keeps the default stack permission on the organization', async () => {
      const org = uniqueOrg();
      await env.storage.identity.createOrg({ name: org, createdAt: 1 });

      await env.storage.identity.setDefaultStackPermission(org, 'read');

      expect(await env.storage.identity.getOrg(org)).toEqual({ name: org, createdAt: 1, defaultStackPermission: 'read' });
      await expect(env.storage.identity.setDefaultStackPermission(uniqueOrg(), 'read')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('creates teams once, and concurrent member changes all apply', async () => {
      const org = uniqueOrg();
      const logins = Array.from({ length: 8 }, () => login()).sort();
      await env.storage.identity.createTeam({ org, name: 'ops', description: 'on call', members: [], createdAt: 5 });
      await expect(
        env.storage.identity.createTeam({ org, name: 'ops', description: 'again', members: [], createdAt: 6 }),
      ).rejects.toBeInstanceOf(ConflictError);

      await Promise.all(logins.map((l) => env.storage.identity.changeTeamMember(org, 'ops', l, 'add')));
      await Promise.all(logins.slice(0, 3).map((l) => env.storage.identity.changeTeamMember(org, 'ops', l, 'remove')));

      expect(await env.storage.identity.getTeam(org, 'ops')).toEqual({ org, name: 'ops', description: 'on call', members: logins.slice(3), createdAt: 5 });
      expect((await env.storage.identity.listTeams(org)).map((t) => t.name)).toEqual(['ops']);
      await expect(env.storage.identity.changeTeamMember(org, 'nope', logins[0]!, 'add')).rejects.toBeInstanceOf(NotFoundError);
      await env.storage.identity.deleteTeam(org, 'ops');
      await expect(env.storage.identity.getTeam(org, 'ops')).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.identity.deleteTeam(org, 'ops')).rejects.toBeInstanceOf(NotFoundError);
      expect(await env.storage.identity.listTeams(org)).toEqual([]);
    });

    it('records a token\'s last use at most once per interval', async () => {
      const t = token(login(), { kind: 'team', org: 'acme', team: 'ops', createdBy: 'alice' });
      await env.storage.identity.putToken(t);

      await env.storage.identity.touchToken(t.tokenHash, 1_000_000, 60_000);
      await env.storage.identity.touchToken(t.tokenHash, 1_030_000, 60_000);
      expect((await env.storage.identity.findToken(t.tokenHash))?.lastUsedAt).toBe(1_000_000);
      await env.storage.identity.touchToken(t.tokenHash, 1_060_000, 60_000);

      expect(await env.storage.identity.findToken(t.tokenHash)).toEqual({ ...t, lastUsedAt: 1_060_000 });
      await expect(env.storage.identity.touchToken(randomBytes(32).toString('hex'), 1, 1)).resolves.toBeUndefined();
    });

    it('creates OIDC trust policies once, lists them oldest first and deletes them once', async () => {
      const org = uniqueOrg();
      const policy = (id: string, createdAt: number, extra: Partial<OidcPolicyRecord> = {}): OidcPolicyRecord => ({
        org,
        id,
        issuer: 'https://token.actions.githubusercontent.com',
        audiences: [`urn:pulumi:org:${org}`],
        claims: { sub: 'repo:acme/infra:ref:refs/heads/*', repository_owner: 'acme' },
        tokenKind: 'organization',
        maxLifetimeSeconds: 3600,
        description: 'deploys',
        createdAt,
        createdBy: 'alice',
        ...extra,
      });
      const second = policy(uniqueId(), 20, { tokenKind: 'team', team: 'ops', claims: {} });
      const first = policy(uniqueId(), 10);

      await env.storage.identity.createOidcPolicy(second, 50);
      await env.storage.identity.createOidcPolicy(first, 50);
      await expect(env.storage.identity.createOidcPolicy({ ...first, description: 'again' }, 50)).rejects.toBeInstanceOf(ConflictError);

      expect(await env.storage.identity.listOidcPolicies(org)).toEqual([first, second]);
      expect(await env.storage.identity.listOidcPolicies(uniqueOrg())).toEqual([]);
      await env.storage.identity.deleteOidcPolicy(org, first.id);
      await expect(env.storage.identity.deleteOidcPolicy(org, first.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(env.storage.identity.deleteOidcPolicy(uniqueOrg(), second.id)).rejects.toBeInstanceOf(NotFoundError);
      expect(await env.storage.identity.listOidcPolicies(org)).toEqual([second]);
    });

    it('never lets concurrent creates pass the per-organization cap, and frees a place on each delete', async () => {
      const org = uniqueOrg();
      const policy = (createdAt: number): OidcPolicyRecord => ({
        org,
        id: uniqueId(),
        issuer: 'https://gitlab.com',
        audiences: [`urn:pulumi:org:${org}`],
        claims: { sub: `project_path:acme/p${createdAt}:*` },
        tokenKind: 'organization',
        maxLifetimeSeconds: 3600,
        description: '',
        createdAt,
        createdBy: 'alice',
      });
      const createAll = (policies: OidcPolicyRecord[]) => Promise.allSettled(policies.map((p) => env.storage.identity.createOidcPolicy(p, 4)));
      const outcome = (results: PromiseSettledResult<void>[]) => results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as Error).constructor.name));
      const kept = await createAll([policy(1), policy(2)]);

      const atTheCap = await createAll(Array.from({ length: 6 }, (_, i) => policy(10 + i)));
      const afterTheCap = await env.storage.identity.listOidcPolicies(org);
      const gone = afterTheCap[0]!;
      const deletes = await Promise.allSettled(Array.from({ length: 4 }, () => env.storage.identity.deleteOidcPolicy(org, gone.id)));
      const afterDelete = await createAll(Array.from({ length: 3 }, (_, i) => policy(20 + i)));

      expect(outcome(kept)).toEqual(['ok', 'ok']);
      expect(outcome(atTheCap).sort()).toEqual(['OidcPolicyLimitError', 'OidcPolicyLimitError', 'OidcPolicyLimitError', 'OidcPolicyLimitError', 'ok', 'ok']);
      expect((atTheCap.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
        status: 400,
        message: 'An organization has at most 4 OIDC trust policies: remove one first.',
      });
      expect(afterTheCap).toHaveLength(4);
      expect(outcome(deletes).sort()).toEqual(['NotFoundError', 'NotFoundError', 'NotFoundError', 'ok']);
      expect(outcome(afterDelete).sort()).toEqual(['OidcPolicyLimitError', 'OidcPolicyLimitError', 'ok']);
      expect(await env.storage.identity.listOidcPolicies(org)).toHaveLength(4);
    });
  });
}
