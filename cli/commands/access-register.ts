/** The grammar of the organization-administration commands (members, teams, stack permissions), loaded lazily. */
import type { Command } from 'commander';
import { positiveInteger, type FlagSpec } from './pulumi-flags.js';
import type { CommandHandler } from './types.js';

/** register.ts's builders, passed in so this file and register.ts do not import each other. */
interface Builders {
  leaf: (parent: Command, usage: string, description: string, flags: FlagSpec[], load: () => Promise<CommandHandler>) => Command;
  group: (parent: Command, name: string, description: string, declare: (cmd: Command) => void) => Command;
}

interface SharedFlags {
  json: FlagSpec;
  stack: FlagSpec;
  yes: FlagSpec;
}

/** `token create|ls|revoke --org <org> [--team <team>]`: organization and team tokens. */
export const ORG_TOKEN_FLAGS: FlagSpec[] = [
  { flags: '--org <org>', description: 'an organization token (organization administrators)' },
  { flags: '--team <team>', description: 'with --org: a team token' },
];

const access = () => import('./access.js');
const audit = () => import('./audit.js');
const oidcPolicy = () => import('./oidc-policy.js');

/** `org member …`, `org set-default-permission`, `org oidc-policy …`. */
export function registerOrgAccessCommands(org: Command, { leaf, group }: Builders, shared: SharedFlags): void {
  group(org, 'member', "Manage an organization's members and their roles", (member) => {
    leaf(member, 'ls <org>', 'List the members and their roles (organization administrators)', [shared.json], async () => (await access()).memberLs);
    leaf(member, 'set-role <org> <login> <role>', 'Change a member\'s role: admin, member or viewer', [], async () => (await access()).memberSetRole);
    leaf(member, 'rm <org> <login>', 'Remove a member from the organization', [], async () => (await access()).memberRm);
  });
  leaf(org, 'set-default-permission <org> <permission>', "Members' permission on stacks they were given nothing on: none, read, write or admin", [], async () => (await access()).orgSetDefaultPermission);

  group(org, 'oidc-policy', 'Manage the OIDC issuers CI may log in with (login --oidc-token)', (oidc) => {
    leaf(oidc, 'add <org>', 'Trust an OIDC issuer: its tokens matching the claims may be exchanged (organization administrators)', [
      { flags: '--issuer <url>', description: "the issuer's https URL, exactly as its tokens' iss claim has it" },
      { flags: '--claim <name=pattern>', description: 'a claim condition; * matches any characters (repeatable, at least one)', repeatable: true },
      { flags: '--audience <aud>', description: 'an accepted aud value (repeatable; default urn:pulumi:org:<org>)', repeatable: true },
      { flags: '--team <team>', description: 'issue team tokens of this team (default: organization tokens)' },
      { flags: '--user <login>', description: 'issue personal tokens of this user (only yourself)' },
      { flags: '--max-lifetime <duration>', description: 'the longest lifetime of an issued token, e.g. 1h (default 2h, at most 24h)' },
      { flags: '--description <text>', description: 'what the policy is for' },
      shared.json,
    ], async () => (await oidcPolicy()).oidcPolicyAdd);
    leaf(oidc, 'ls <org>', "List the organization's OIDC trust policies", [shared.json], async () => (await oidcPolicy()).oidcPolicyLs);
    leaf(oidc, 'rm <org> <id>', 'Remove an OIDC trust policy (tokens it issued stay valid until they expire)', [], async () => (await oidcPolicy()).oidcPolicyRm);
  });
}

/** `team …` and `audit ls`. */
export function registerTeamAndAuditCommands(program: Command, { leaf, group }: Builders, shared: SharedFlags): void {
  group(program, 'team', "Manage an organization's teams", (team) => {
    leaf(team, 'create <org> <name>', 'Create a team', [{ flags: '--description <text>', description: 'what the team is' }], async () => (await access()).teamCreate);
    leaf(team, 'ls <org>', 'List the teams and their members', [shared.json], async () => (await access()).teamLs);
    leaf(team, 'rm <org> <name>', 'Delete a team (its tokens stop working)', [], async () => (await access()).teamRm);
    leaf(team, 'add-member <org> <team> <login>', 'Add an organization member to a team', [], async () => (await access()).teamAddMember);
    leaf(team, 'rm-member <org> <team> <login>', 'Remove a member from a team', [], async () => (await access()).teamRmMember);
  });

  group(program, 'audit', "Read an organization's audit log", (auditCmd) => {
    leaf(auditCmd, 'ls', 'List audit log entries, newest first (organization administrators)', [
      shared.json,
      { flags: '--org <org>', description: 'the organization (default: your default organization)' },
      { flags: '--since <when>', description: 'only entries since a duration ago (24h, 7d) or a date/time' },
      { flags: '--user <login>', description: 'only entries of this actor' },
      { flags: '--event <event>', description: 'only this event (e.g. stack.deleted)' },
      { flags: '--limit <n>', description: 'at most this many entries (default 100)', parse: positiveInteger },
    ], async () => (await audit()).auditLs);
  });
}

/** `stack permission …`. */
export function registerStackPermissionCommands(stackCmd: Command, { leaf, group }: Builders, shared: SharedFlags): void {
  group(stackCmd, 'permission', 'Manage who may read, write or administer a stack', (permission) => {
    leaf(permission, 'ls', "List the stack's permissions given to users and teams", [shared.stack, shared.json], async () => (await access()).permissionLs);
    leaf(permission, 'set <permission>', 'Give a user or team read, write or admin on the stack (none removes it)', [
      shared.stack,
      { flags: '--user <login>', description: 'the member to give it to' },
      { flags: '--team <team>', description: 'the team to give it to' },
    ], async () => (await access()).permissionSet);
  });
}
