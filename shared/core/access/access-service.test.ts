import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { StackRef } from '../names.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';

const ref: StackRef = { org: 'acme', project: 'web', stack: 'prod' };

describe('the permission model', () => {
  let fx: ServiceFixture;
  let owner: Principal;

  beforeEach(async () => {
    fx = await serviceFixture();
    owner = await fx.user('owner', ['acme'], 'admin');
    await fx.stacks.create(owner, ref);
  });

  afterEach(async () => {
    await fx.close();
  });

  /** Tries one call per permission level: read (history), write (tags), admin (grant listing is read, so rename). */
  async function levels(principal: Principal): Promise<Record<'read' | 'write' | 'admin', string>> {
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        () => 'allowed',
        (error: unknown) => (error instanceof ForbiddenError ? 'forbidden' : error instanceof NotFoundError ? 'not found' : String(error)),
      );
    const before = await fx.snapshot();
    const result = {
      read: await outcome(fx.stacks.history(principal, ref, 1, 10)),
      write: await outcome(fx.stacks.setTags(principal, ref, { 'pulumi:project': 'web' })),
      admin: await outcome(fx.access.setStackGrant(principal, ref, { user: 'owner' }, 'admin')),
    };
    // A refused write or admin call changes nothing.
    if (result.write !== 'allowed' && result.admin !== 'allowed') expect(await fx.snapshot()).toEqual(before);
    return result;
  }

  it('gives members the organization default (write), viewers read, admins and creators admin', async () => {
    // Arrange
    const member = await fx.user('member', ['acme']);
    const viewer = await fx.user('viewer', ['acme'], 'viewer');
    const outsider = await fx.user('outsider', ['other']);
    const creatorRef = { ...ref, stack: 'mine' };
    await fx.stacks.create(member, creatorRef);

    // Act / Assess
    expect(await levels(owner)).toEqual({ read: 'allowed', write: 'allowed', admin: 'allowed' });
    expect(await levels(member)).toEqual({ read: 'allowed', write: 'allowed', admin: 'forbidden' });
    expect(await levels(viewer)).toEqual({ read: 'allowed', write: 'forbidden', admin: 'forbidden' });
    expect(await levels(outsider)).toEqual({ read: 'not found', write: 'not found', admin: 'not found' });
    await expect(fx.stacks.remove(member, ref, true)).rejects.toThrow(
      "'member' has 'write' permission on stack 'acme/web/prod', and delete needs 'admin'",
    );
    await expect(fx.stacks.create(viewer, { ...ref, stack: 'nope' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(fx.access.listStackGrants(member, creatorRef)).resolves.toEqual([]);
    await expect(fx.stacks.remove(member, creatorRef, true)).resolves.toBeUndefined();
  });

  it('follows the default permission setting and per-stack grants to users and teams', async () => {
    // Arrange
    const member = await fx.user('member', ['acme']);
    const teammate = await fx.user('teammate', ['acme']);
    await fx.access.setDefaultStackPermission(owner, 'acme', 'none');
    await fx.access.createTeam(owner, 'acme', 'ops');
    await fx.access.changeTeamMember(owner, 'acme', 'ops', 'teammate', 'add');

    // Act / Assess
    expect(await levels(member)).toEqual({ read: 'not found', write: 'not found', admin: 'not found' });
    expect((await fx.stacks.list(member, {})).stacks.map((s) => s.stack)).toEqual([]);
    await fx.access.setStackGrant(owner, ref, { user: 'member' }, 'read');
    expect(await levels(member)).toEqual({ read: 'allowed', write: 'forbidden', admin: 'forbidden' });
    expect((await fx.stacks.list(member, {})).stacks.map((s) => s.stack)).toEqual(['prod']);
    await fx.access.setStackGrant(owner, ref, { team: 'ops' }, 'admin');
    expect(await levels(teammate)).toEqual({ read: 'allowed', write: 'allowed', admin: 'allowed' });
    await fx.access.changeTeamMember(owner, 'acme', 'ops', 'teammate', 'remove');
    expect(await levels(teammate)).toEqual({ read: 'not found', write: 'not found', admin: 'not found' });
    expect(await fx.access.listStackGrants(owner, ref)).toEqual([
      { subject: 'user', name: 'member', permission: 'read' },
      { subject: 'team', name: 'ops', permission: 'admin' },
      // levels() has the teammate grant 'owner' admin, the one admin-level call it tries.
      { subject: 'user', name: 'owner', permission: 'admin' },
    ]);
  });

  it('lets team and organization tokens act with only their team or organization rights', async () => {
    // Arrange
    await fx.access.createTeam(owner, 'acme', 'ci');
    const teamToken = await fx.access.createOrgToken(owner, 'acme', { description: 'ci deploys', team: 'ci' });
    const orgToken = await fx.access.createOrgToken(owner, 'acme', { description: 'org automation' });
    const asTeam = await fx.identity.authenticate(teamToken.token);
    const asOrg = await fx.identity.authenticate(orgToken.token);

    // Act / Assess
    expect(asTeam.token).toMatchObject({ kind: 'team', org: 'acme', team: 'ci', createdBy: 'owner' });
    expect(await fx.identity.defaultOrg(asTeam)).toBe('acme');
    expect(await levels(asTeam)).toEqual({ read: 'not found', write: 'not found', admin: 'not found' });
    await fx.access.setStackGrant(owner, ref, { team: 'ci' }, 'write');
    expect(await levels(asTeam)).toEqual({ read: 'allowed', write: 'allowed', admin: 'forbidden' });
    expect(await levels(asOrg)).toEqual({ read: 'allowed', write: 'allowed', admin: 'allowed' });
    const teamStack = { ...ref, stack: 'team-made' };
    await fx.stacks.create(asTeam, teamStack);
    await expect(fx.stacks.remove(asTeam, teamStack, true)).resolves.toBeUndefined();
    await expect(fx.stacks.remove(asTeam, ref, true)).rejects.toThrow(
      "team token 'ci deploys' of team 'ci' has 'write' permission on stack 'acme/web/prod', and delete needs 'admin'",
    );
    await expect(fx.access.createTeam(asOrg, 'acme', 'sneaky')).rejects.toThrow(/^An organization token cannot manage teams in 'acme'/);
    for (const call of [
      fx.access.createTeam(asOrg, 'acme', 'sneaky'),
      fx.access.setMemberRole(asTeam, 'acme', 'owner', 'viewer'),
      fx.access.createOrgToken(asOrg, 'acme', { description: 'more' }),
      fx.identity.createToken(asTeam, { description: 'personal' }),
    ]) {
      await expect(call).rejects.toBeInstanceOf(ForbiddenError);
    }
    await fx.access.deleteTeam(owner, 'acme', 'ci');
    await expect(fx.identity.authenticate(teamToken.token)).rejects.toBeInstanceOf(UnauthorizedError);
    await fx.access.revokeOrgToken(owner, 'acme', orgToken.record.id);
    await expect(fx.identity.authenticate(orgToken.token)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('lets only organization admins manage members, teams, tokens and settings, keeping one admin', async () => {
    // Arrange
    const member = await fx.user('member', ['acme']);

    // Act / Assess
    for (const [name, call] of Object.entries({
      role: () => fx.access.setMemberRole(member, 'acme', 'member', 'admin'),
      team: () => fx.access.createTeam(member, 'acme', 'mine'),
      settings: () => fx.access.setDefaultStackPermission(member, 'acme', 'admin'),
      token: () => fx.access.createOrgToken(member, 'acme', { description: 'x' }),
      add: () => fx.identity.addMember(member, 'acme', 'owner', 'viewer'),
    })) {
      await expect(call(), name).rejects.toBeInstanceOf(ForbiddenError);
    }
    // The site administrator who created the organization is its other admin until removed.
    await fx.access.removeMember(owner, 'acme', 'admin');
    await expect(fx.access.setMemberRole(owner, 'acme', 'owner', 'member')).rejects.toBeInstanceOf(ConflictError);
    await expect(fx.access.removeMember(owner, 'acme', 'owner')).rejects.toThrow(/last administrator/);
    await fx.access.setMemberRole(owner, 'acme', 'member', 'viewer');
    expect((await fx.access.listMembers(owner, 'acme')).map((m) => [m.login, m.role])).toEqual([
      ['member', 'viewer'],
      ['owner', 'admin'],
    ]);
    await fx.access.removeMember(owner, 'acme', 'member');
    await expect(fx.stacks.get(await fx.identity.authenticate(await tokenOf('member')), ref)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('gives the teams named at creation (stack init --teams) write', async () => {
    await fx.access.createTeam(owner, 'acme', 'web');

    const stack = await fx.stacks.create(owner, { ...ref, stack: 'teamed' }, { teams: ['web'] });

    expect(stack.grants).toEqual({ 'team:web': 'write' });
    await expect(fx.stacks.create(owner, { ...ref, stack: 'other' }, { teams: ['ghosts'] })).rejects.toThrow(/Team 'ghosts' does not exist/);
  });

  async function tokenOf(login: string): Promise<string> {
    return (await fx.identity.createToken(fx.admin, { login, description: 'again' })).token;
  }
});
