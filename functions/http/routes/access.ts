import { InvalidInputError } from '../../../shared/core/errors.js';
import type { GrantTarget } from '../../../shared/core/access/access-service.js';
import { validateBody } from '../decode.js';
import { jsonResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createOrgTokenSchema, createTeamSchema, memberRoleSchema, orgSettingsSchema, stackGrantSchema, teamMemberSchema } from '../schemas-identity.js';
import { tokenView } from '../wire.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ORG = '/api/orgs/{orgName}';
const TEAM = `${ORG}/teams/{teamName}`;
const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';

/** Organization tokens (`teamName` absent) and team tokens share their three routes' bodies. */
function tokenRoutes(base: string): Route[] {
  return [
    {
      method: 'POST',
      path: `${base}/tokens`,
      group: 'identity',
      async handle(ctx) {
        const principal = await ctx.principal();
        const body = validateBody(createOrgTokenSchema, await ctx.jsonBody(), 'create token request');
        const { token, record } = await ctx.services.access.createOrgToken(principal, ctx.params.orgName!, {
          description: body.description,
          expiresInMs: body.expiresInDays === undefined ? undefined : Math.round(body.expiresInDays * DAY_MS),
          team: ctx.params.teamName,
        });
        return jsonResponse(201, { id: record.id, tokenValue: token });
      },
    },
    {
      method: 'GET',
      path: `${base}/tokens`,
      group: 'identity',
      async handle(ctx) {
        const tokens = await ctx.services.access.listOrgTokens(await ctx.principal(), ctx.params.orgName!, ctx.params.teamName);
        return jsonResponse(200, { tokens: tokens.map(tokenView) });
      },
    },
    {
      method: 'DELETE',
      path: `${base}/tokens/{tokenId}`,
      group: 'identity',
      async handle(ctx) {
        const principal = await ctx.principal();
        await ctx.services.access.revokeOrgToken(principal, ctx.params.orgName!, ctx.params.tokenId!, ctx.params.teamName);
        return okResponse();
      },
    },
  ];
}

/** Members and roles, teams, the default stack permission, stack grants, team and organization tokens. */
export const accessRoutes: Route[] = [
  {
    method: 'GET',
    path: `${ORG}/members`,
    group: 'identity',
    async handle(ctx) {
      const members = await ctx.services.access.listMembers(await ctx.principal(), ctx.params.orgName!);
      return jsonResponse(200, {
        members: members.map((m) => ({ role: m.role, user: { githubLogin: m.login, name: m.login, avatarUrl: '' } })),
      });
    },
  },
  {
    method: 'PATCH',
    path: `${ORG}/members/{userLogin}`,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(memberRoleSchema, await ctx.jsonBody(), 'member role change');
      await ctx.services.access.setMemberRole(principal, ctx.params.orgName!, ctx.params.userLogin!, body.role);
      return okResponse();
    },
  },
  {
    method: 'DELETE',
    path: `${ORG}/members/{userLogin}`,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      await ctx.services.access.removeMember(principal, ctx.params.orgName!, ctx.params.userLogin!);
      return okResponse();
    },
  },
  {
    method: 'PATCH',
    path: `${ORG}/settings`,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(orgSettingsSchema, await ctx.jsonBody(), 'organization settings');
      await ctx.services.access.setDefaultStackPermission(principal, ctx.params.orgName!, body.defaultStackPermission);
      return okResponse();
    },
  },
  {
    method: 'GET',
    path: `${ORG}/teams`,
    group: 'identity',
    async handle(ctx) {
      const teams = await ctx.services.access.listTeams(await ctx.principal(), ctx.params.orgName!);
      return jsonResponse(200, { teams: teams.map(({ name, description, members }) => ({ name, description, members })) });
    },
  },
  {
    method: 'POST',
    path: `${ORG}/teams`,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createTeamSchema, await ctx.jsonBody(), 'create team request');
      const team = await ctx.services.access.createTeam(principal, ctx.params.orgName!, body.name, body.description);
      return jsonResponse(201, { name: team.name, description: team.description, members: team.members });
    },
  },
  {
    method: 'PATCH',
    path: TEAM,
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(teamMemberSchema, await ctx.jsonBody(), 'team change');
      await ctx.services.access.changeTeamMember(principal, ctx.params.orgName!, ctx.params.teamName!, body.member, body.memberAction);
      return okResponse();
    },
  },
  {
    method: 'DELETE',
    path: TEAM,
    group: 'identity',
    async handle(ctx) {
      await ctx.services.access.deleteTeam(await ctx.principal(), ctx.params.orgName!, ctx.params.teamName!);
      return okResponse();
    },
  },
  ...tokenRoutes(ORG),
  ...tokenRoutes(TEAM),
  {
    method: 'GET',
    path: `${STACK}/permissions`,
    group: 'stacks',
    async handle(ctx) {
      const grants = await ctx.services.access.listStackGrants(await ctx.principal(), ctx.stackRef());
      return jsonResponse(200, { permissions: grants });
    },
  },
  {
    method: 'PATCH',
    path: `${STACK}/permissions`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(stackGrantSchema, await ctx.jsonBody(), 'stack permission change');
      if ((body.user === undefined) === (body.team === undefined)) {
        throw new InvalidInputError('Give exactly one of "user" or "team".');
      }
      const target: GrantTarget = body.user !== undefined ? { user: body.user } : { team: body.team! };
      await ctx.services.access.setStackGrant(principal, ref, target, body.permission);
      return okResponse();
    },
  },
];
