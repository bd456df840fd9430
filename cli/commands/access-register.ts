/** The grammar of the organization-administration commands (members, teams, stack permissions), loaded lazily. */
import type { Command } from 'commander';
import type { FlagSpec } from './pulumi-flags.js';
import type { CommandHandler } from './register.js';

type Leaf = (parent: Command, usage: string, description: string, flags: FlagSpec[], load: () => Promise<CommandHandler>) => Command;

/** `token create|ls|revoke --org <org> [--team <team>]`: organization and team tokens. */
export const ORG_TOKEN_FLAGS: FlagSpec[] = [
  { flags: '--org <org>', description: 'an organization token (organization administrators)' },
  { flags: '--team <team>', description: 'with --org: a team token' },
];

const access = () => import('./access.js');

export function registerAccessCommands(
  program: Command,
  org: Command,
  stackCmd: Command,
  leaf: Leaf,
  shared: { json: FlagSpec; stack: FlagSpec; yes: FlagSpec },
): void {
  const member = org.command('member').description("Manage an organization's members and their roles");
  leaf(member, 'ls <org>', 'List the members and their roles (organization administrators)', [shared.json], async () => (await access()).memberLs);
  leaf(member, 'set-role <org> <login> <role>', 'Change a member\'s role: admin, member or viewer', [], async () => (await access()).memberSetRole);
  leaf(member, 'rm <org> <login>', 'Remove a member from the organization', [], async () => (await access()).memberRm);
  leaf(org, 'set-default-permission <org> <permission>', "Members' permission on stacks they were given nothing on: none, read, write or admin", [], async () => (await access()).orgSetDefaultPermission);

  const team = program.command('team').description("Manage an organization's teams");
  leaf(team, 'create <org> <name>', 'Create a team', [{ flags: '--description <text>', description: 'what the team is' }], async () => (await access()).teamCreate);
  leaf(team, 'ls <org>', 'List the teams and their members', [shared.json], async () => (await access()).teamLs);
  leaf(team, 'rm <org> <name>', 'Delete a team (its tokens stop working)', [], async () => (await access()).teamRm);
  leaf(team, 'add-member <org> <team> <login>', 'Add an organization member to a team', [], async () => (await access()).teamAddMember);
  leaf(team, 'rm-member <org> <team> <login>', 'Remove a member from a team', [], async () => (await access()).teamRmMember);

  const permission = stackCmd.command('permission').description("Manage who may read, write or administer a stack");
  leaf(permission, 'ls', "List the stack's permissions given to users and teams", [shared.stack, shared.json], async () => (await access()).permissionLs);
  leaf(permission, 'set <permission>', 'Give a user or team read, write or admin on the stack (none removes it)', [
    shared.stack,
    { flags: '--user <login>', description: 'the member to give it to' },
    { flags: '--team <team>', description: 'the team to give it to' },
  ], async () => (await access()).permissionSet);
}
