/** `org member`, `org set-default-permission`, `team` and `stack permission`: organization administration. */
import { ORG_ROLES, type OrgRole } from '../../shared/ports/identity-store.js';
import { STACK_PERMISSIONS, type DefaultStackPermission, type StackPermission } from '../../shared/core/kernel/permissions.js';
import { UserError } from '../output/errors.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

function role(value: string | undefined): OrgRole {
  if (!ORG_ROLES.includes(value as OrgRole)) throw new UserError(`invalid role '${value}'`, 'Use admin, member or viewer.');
  return value as OrgRole;
}

function permission(value: string | undefined): DefaultStackPermission {
  if (value !== 'none' && !STACK_PERMISSIONS.includes(value as StackPermission)) {
    throw new UserError(`invalid permission '${value}'`, 'Use none, read, write or admin.');
  }
  return value as DefaultStackPermission;
}

export const memberLs: CommandHandler = async (ctx, args, opts) => {
  const members = await (await ctx.backend()).access().listMembers(args[0]!);
  if (opts.json === true) return ctx.json(members);
  ctx.out(table(['LOGIN', 'ROLE'], members.map((m) => [m.login, m.role])));
};

export const memberSetRole: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().setMemberRole(args[0]!, args[1]!, role(args[2]));
  ctx.out(`'${args[1]}' is now ${args[2]} of organization '${args[0]}'`);
};

export const memberRm: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().removeMember(args[0]!, args[1]!);
  ctx.out(`Removed '${args[1]}' from organization '${args[0]}'`);
};

export const orgSetDefaultPermission: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().setDefaultPermission(args[0]!, permission(args[1]));
  ctx.out(`Members of '${args[0]}' now get '${args[1]}' on stacks they were given nothing on`);
};

export const teamCreate: CommandHandler = async (ctx, args, opts) => {
  await (await ctx.backend()).access().createTeam(args[0]!, args[1]!, opts.description as string | undefined);
  ctx.out(`Created team '${args[1]}' in '${args[0]}'`);
};

export const teamLs: CommandHandler = async (ctx, args, opts) => {
  const teams = await (await ctx.backend()).access().listTeams(args[0]!);
  if (opts.json === true) return ctx.json(teams);
  ctx.out(table(['NAME', 'MEMBERS', 'DESCRIPTION'], teams.map((t) => [t.name, t.members.join(', '), t.description])));
};

export const teamRm: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().deleteTeam(args[0]!, args[1]!);
  ctx.out(`Deleted team '${args[1]}' of '${args[0]}'`);
};

export const teamAddMember: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().changeTeamMember(args[0]!, args[1]!, args[2]!, 'add');
  ctx.out(`Added '${args[2]}' to team '${args[1]}'`);
};

export const teamRmMember: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().changeTeamMember(args[0]!, args[1]!, args[2]!, 'remove');
  ctx.out(`Removed '${args[2]}' from team '${args[1]}'`);
};

export const permissionLs: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const grants = await backend.access().listGrants(ref);
  if (opts.json === true) return ctx.json(grants);
  ctx.out(table(['SUBJECT', 'NAME', 'PERMISSION'], grants.map((g) => [g.subject, g.name, g.permission])));
};

export const permissionSet: CommandHandler = async (ctx, args, opts) => {
  const user = opts.user as string | undefined;
  const team = opts.team as string | undefined;
  if ((user === undefined) === (team === undefined)) throw new UserError('give exactly one of --user or --team', 'For example: `stackyard stack permission set write --team ops`.');
  const level = permission(args[0]);
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await backend.access().setGrant(ref, user !== undefined ? { user } : { team: team! }, level === 'none' ? null : level);
  const who = user !== undefined ? `'${user}'` : `team '${team}'`;
  ctx.out(level === 'none' ? `Removed the permission of ${who} on '${await ctx.displayName(ref)}'` : `${who} now has '${level}' on '${await ctx.displayName(ref)}'`);
};
