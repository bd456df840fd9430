/** Organizations, teams, users, tokens and the operator's `admin` commands. */
import type { Command } from 'commander';
import { ORG_TOKEN_FLAGS, registerOrgAccessCommands, registerTeamAndAuditCommands } from '../access-register.js';
import { addFlags, positiveInteger, tokenLifetimeDays } from '../pulumi-flags.js';
import { registerOidcKeyGrammar } from './oidc-key-grammar.js';
import { registerOrgApprovalsGrammar } from './plan-grammar.js';
import { COMMAND_GLOBALS, JSON_FLAG, SHARED_FLAGS, group, leaf, run } from './tree.js';

const admin = () => import('../admin.js');

export function registerOrganizationGrammar(program: Command): void {
  group(program, 'org', 'Manage organizations', (org) => {
    addFlags(org, COMMAND_GLOBALS);
    org.action(run(async () => (await import('../org-default.js')).orgSummary));
    leaf(org, 'get-default', 'Get the default organization for the current backend', [], async () => (await import('../org-default.js')).orgGetDefault);
    leaf(org, 'set-default <name>', 'Set the default organization for the current backend', [], async () => (await import('../org-default.js')).orgSetDefault);
    leaf(org, 'create <name>', 'Create an organization (administrators)', [], async () => (await admin()).orgCreate);
    leaf(org, 'ls', 'List the organizations you belong to', [JSON_FLAG], async () => (await admin()).orgLs);
    leaf(org, 'add-member <org> <login>', 'Add a user to an organization', [
      { flags: '--role <role>', description: 'admin, member or viewer (default member)' },
    ], async () => (await admin()).orgAddMember);
    registerOrgApprovalsGrammar(org);
    registerOrgAccessCommands(org, { leaf, group }, SHARED_FLAGS);
  });
  registerTeamAndAuditCommands(program, { leaf, group }, SHARED_FLAGS);

  group(program, 'user', 'Manage users', (user) => {
    leaf(user, 'create <login>', 'Create a user and its personal organization (administrators)', [
      { flags: '--name <name>', description: 'display name' },
      { flags: '--email <email>', description: 'email address' },
      { flags: '--admin', description: 'make the user an administrator' },
    ], async () => (await admin()).userCreate);
  });

  group(program, 'token', 'Manage API access tokens', (token) => {
    leaf(token, 'create', 'Create an access token (printed once)', [
      ...ORG_TOKEN_FLAGS,
      { flags: '--description <text>', description: 'what the token is for' },
      { flags: '--login <login>', description: 'create it for another user (administrators)' },
      { flags: '--expires-in <duration>', description: 'expire after this long: 15m, 12h, 30d (default: never)', parse: tokenLifetimeDays },
      { flags: '--expires-in-days <days>', description: 'expire after this many days (as --expires-in <days>d)', parse: positiveInteger },
    ], async () => (await admin()).tokenCreate);
    leaf(token, 'ls', 'List access tokens', [
      JSON_FLAG,
      ...ORG_TOKEN_FLAGS,
      { flags: '--login <login>', description: 'list another user\'s tokens (administrators)' },
    ], async () => (await admin()).tokenLs);
    leaf(token, 'revoke <id>', 'Revoke an access token', [
      ...ORG_TOKEN_FLAGS,
      { flags: '--login <login>', description: 'revoke another user\'s token (administrators)' },
    ], async () => (await admin()).tokenRevoke);
  });

  group(program, 'admin', 'Operate a deployed Stackyard', (adminCmd) => {
    leaf(adminCmd, 'bootstrap', 'Write the first administrator and print its token once (uses your AWS credentials)', [
      { flags: '--table <name>', description: 'the deployment\'s DynamoDB table (TableName stack output)' },
      { flags: '--user <login>', description: 'administrator login (default: your operating-system user name)' },
    ], async () => async (_ctx, _args, opts) => {
      const { runAdminBootstrap } = await import('../admin-bootstrap.js');
      await runAdminBootstrap(
        { table: String(opts.table ?? ''), user: typeof opts.user === 'string' ? opts.user : undefined },
        { stdout: (line) => process.stdout.write(`${line}\n`), stderr: (line) => process.stderr.write(`${line}\n`) },
      );
    });

    leaf(adminCmd, 'upgrade', 'Apply the data changes a new release needs to a deployed table (idempotent; uses your AWS credentials)', [
      { flags: '--table <name>', description: 'the deployment\'s DynamoDB table (TableName stack output)' },
    ], async () => async (_ctx, _args, opts) => {
      const { runAdminUpgrade } = await import('../admin-upgrade.js');
      await runAdminUpgrade({ table: String(opts.table ?? '') }, { stdout: (line) => process.stdout.write(`${line}\n`), stderr: (line) => process.stderr.write(`${line}\n`) });
    });

    registerOidcKeyGrammar(adminCmd);
  });
}
