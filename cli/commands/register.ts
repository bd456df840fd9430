/**
 * The command tree, in Pulumi's grammar. Only names and flags live here: each command's body is imported when it
 * runs, so `stackyard --version` loads nothing but commander. A command's flags and subcommands are declared only
 * when commander reaches it (lazy-tree.ts).
 */
import { Command, InvalidArgumentError } from 'commander';
import { UserError } from '../output/errors.js';
import { ENGINE_COMMAND_DESCRIPTIONS, ENGINE_COMMANDS, declareEngineCommand } from './engine-command.js';
import { watchFlags } from './engine-flags.js';
import { ORG_TOKEN_FLAGS, registerOrgAccessCommands, registerStackPermissionCommands, registerTeamAndAuditCommands } from './access-register.js';
import { declareLater, declareOnDispatch, declareTreeBeforeHelp } from './lazy-tree.js';
import { INHERITED_REFUSED, addFlags, assertNoRefusedFlags, positiveInteger, tokenLifetimeDays, type FlagSpec } from './pulumi-flags.js';
import type { CommandHandler } from './types.js';

const STACK_FLAG: FlagSpec = { flags: '-s, --stack <name>', description: 'the stack to operate on (default: the selected stack)' };
const YES_FLAG: FlagSpec = { flags: '-y, --yes', description: 'skip confirmation prompts' };
const JSON_FLAG: FlagSpec = { flags: '-j, --json', description: 'emit output as JSON' };
const SHARED_FLAGS = { json: JSON_FLAG, stack: STACK_FLAG, yes: YES_FLAG };

/**
 * `pulumi`'s global flags, declared on every command: options are positional (each command owns the flags written
 * after its name), so a subcommand's `--version <n>` or `--stack` is never taken by the program.
 */
const GLOBAL_FLAGS: FlagSpec[] = [
  { flags: '-C, --cwd <dir>', description: 'run as if started in <dir>' },
  { flags: '--non-interactive', description: 'never prompt' },
  { flags: '--color <mode>', description: 'colorize output: always, never, raw, auto' },
];

/** `pulumi`'s global flags that stackyard refuses (each says why). */
const GLOBAL_REFUSED: FlagSpec[] = [
  { flags: '-e, --emoji', description: 'enable emojis in the output', refused: 'stackyard prints no emoji' },
  { flags: '-Q, --fully-qualify-stack-names', description: 'show fully-qualified stack names', refused: 'names are shown short within the current project and organization and in full otherwise' },
  { flags: '--disable-integrity-checking', description: 'disable integrity checking of checkpoint files', refused: 'every state is checked before it is saved; a broken state is never accepted' },
  { flags: '--logflow', description: 'flow log settings to child processes', refused: 'stackyard writes no log files for plugins to share' },
  { flags: '--logtostderr', description: 'log to stderr instead of to files', refused: 'stackyard writes no log files; engine commands print debug output with -v' },
  { flags: '--memprofilerate <rate>', description: 'memory profile rate', refused: 'stackyard is not a Go program and writes no memory profiles' },
  { flags: '--profiling <file>', description: 'emit CPU and memory profiles', refused: 'stackyard is not a Go program and writes no CPU profiles' },
];

/** The global flags as every command declares them: accepted, but listed only in the program's help. */
const COMMAND_GLOBALS: FlagSpec[] = [...GLOBAL_FLAGS, ...GLOBAL_REFUSED, ...INHERITED_REFUSED].map((spec) => ({ ...spec, hidden: true }));

function run(load: () => Promise<CommandHandler>) {
  return async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const args = params.slice(0, -2) as (string | undefined)[];
    const [{ CommandContext }, handler] = await Promise.all([import('./context.js'), load()]);
    const ctx = new CommandContext(command.optsWithGlobals());
    try {
      // Flags given before the command's name belong to its parents: read the merged set.
      await handler(ctx, args, command.optsWithGlobals());
    } finally {
      await ctx.close();
    }
  };
}

function leaf(
  parent: Command,
  usage: string,
  description: string,
  flags: FlagSpec[],
  load: () => Promise<CommandHandler>,
  globals: FlagSpec[] = COMMAND_GLOBALS,
): Command {
  const cmd = parent.command(usage).description(description).action(run(load));
  return declareLater(cmd, () => addFlags(cmd, [...flags, ...globals]));
}

/** A command with subcommands: `declare` adds its own flags and its subcommands when commander reaches it. */
function group(parent: Command, name: string, description: string, declare: (cmd: Command) => void): Command {
  const cmd = parent.command(name).description(description);
  declareOnDispatch(cmd);
  return declareLater(cmd, () => declare(cmd));
}

const stack = () => import('./stack.js');
const config = () => import('./config.js');
const state = () => import('./state.js');
const stateResources = () => import('./state-resources.js');
const auth = () => import('./auth.js');
const admin = () => import('./admin.js');
const hook = () => import('./hook.js');
const pluginCommands = {
  ls: () => import('./plugin-ls.js'),
  install: () => import('./plugin-install.js'),
  rm: () => import('./plugin-rm.js'),
};

/** Every hook command works on an organization's hooks or one stack's (default: the selected stack). */
const HOOK_SCOPE_FLAGS: FlagSpec[] = [
  { flags: '-s, --stack <name>', description: 'the stack whose hooks to use (default: the selected stack)' },
  { flags: '--org <org>', description: 'the organization\'s hooks instead, which see every stack of it' },
];

/** An integer flag value (negative allowed), as cobra's IntVar reads it. */
function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer');
  return Number(value);
}

/** Adds every command (and Pulumi's global flags) to the program. */
export function registerCommands(program: Command): void {
  program.enablePositionalOptions();
  addFlags(program, GLOBAL_REFUSED);
  declareOnDispatch(program);
  declareTreeBeforeHelp(program);
  program.addHelpText('after', '\nThe options above (and -v/--verbose, --tracing) are also accepted after any command name.\nSee docs/cli.md.');
  program.hook('preAction', (_program, actionCommand) => {
    assertNoRefusedFlags(actionCommand, true);
    const cwd = actionCommand.optsWithGlobals().cwd as string | undefined;
    if (cwd) {
      try {
        process.chdir(cwd);
      } catch {
        throw new UserError(`cannot run in '${cwd}': no such folder`, 'Pass an existing folder with -C <dir>.');
      }
    }
  });

  leaf(program, 'login [url]', 'Log in to a stackyard backend (a service URL, file://<folder>, or --local)', [
    { flags: '-l, --local', description: 'keep stacks in $STACKYARD_HOME/local on this machine' },
    { flags: '--cloud-url <url>', description: 'the backend URL (same as the argument)' },
    { flags: '--default-org <org>', description: 'the organization of stack names given without one (a service only; see `org set-default`)' },
    { flags: '--insecure', description: 'skip TLS verification', refused: 'TLS certificates are always verified' },
    { flags: '--oidc-token <token>', description: "an OIDC ID token to exchange for an access token: the token, or 'file://<path>' of a file holding it" },
    { flags: '--oidc-org <org>', description: 'the organization of the OIDC token exchange (default: from the token\'s aud claim)' },
    { flags: '--oidc-team <team>', description: 'exchange for a team token of this team' },
    { flags: '--oidc-user <user>', description: 'exchange for a personal token of this user' },
    { flags: '--oidc-expiration <duration>', description: "the exchanged token's lifetime, e.g. '15m', '24h' (default 2h; the trust policy's maximum caps it)" },
  ], async () => (await auth()).login);

  leaf(program, 'logout [url]', 'Log out of a backend (the current one by default)', [
    { flags: '-l, --local', description: 'log out of the local backend' },
    { flags: '--cloud-url <url>', description: 'the backend URL (same as the argument)' },
    { flags: '--all', description: 'log out of every backend' },
  ], async () => (await auth()).logout);

  leaf(program, 'whoami', 'Show the current user and backend', [
    JSON_FLAG,
    { flags: '-v, --verbose', description: 'also show organizations and the backend URL' },
  ], async () => (await auth()).whoami, COMMAND_GLOBALS.filter((f) => !f.flags.startsWith('-v,')));

  group(program, 'stack', 'Manage stacks and view stack state', (stackCmd) => {
    addFlags(stackCmd, [
      STACK_FLAG,
      { flags: '-i, --show-ids', description: 'display each resource ID' },
      { flags: '--show-name', description: 'display only the stack name' },
      { flags: '--show-urns', description: 'display each resource URN' },
      { flags: '--show-secrets', description: 'display stack outputs which are marked as secret in plaintext' },
      ...COMMAND_GLOBALS,
    ]);
    stackCmd.action(run(async () => (await stack()).stackSummary));

    leaf(stackCmd, 'init [name]', 'Create an empty stack with the given name, ready for updates', [
      STACK_FLAG,
      { flags: '--copy-config-from <stack>', description: 'copy the configuration of another stack of this project' },
      { flags: '--no-select', description: 'do not select the new stack' },
      { flags: '--secrets-provider <provider>', description: 'secrets provider (stackyard always uses the stack key)', refused: "each stack's secrets are always encrypted with the stack's own key, held by the backend" },
      { flags: '--teams <team>', description: 'teams of the organization to give write access (repeatable)', repeatable: true },
      { flags: '--remote-config', description: 'store config in an ESC environment', refused: 'stackyard has no ESC environments; config lives in Pulumi.<stack>.yaml' },
    ], async () => (await stack()).stackInit);

    leaf(stackCmd, 'ls', 'List stacks', [
      JSON_FLAG,
      { flags: '-a, --all', description: 'list all stacks instead of just those of the current project' },
      { flags: '-o, --organization <org>', description: 'only stacks of this organization' },
      { flags: '-p, --project <project>', description: 'only stacks of this project' },
      { flags: '-t, --tag <tag>', description: 'only stacks with this tag (name or name=value)' },
    ], async () => (await import('./stack-ls.js')).stackLs);

    leaf(stackCmd, 'select [name]', 'Switch the current workspace to the given stack', [
      STACK_FLAG,
      { flags: '-c, --create', description: 'create the stack if it does not exist' },
      { flags: '--secrets-provider <provider>', description: 'secrets provider for --create', refused: "each stack's secrets are always encrypted with the stack's own key, held by the backend" },
    ], async () => (await stack()).stackSelect);

    leaf(stackCmd, 'unselect', 'Reset the stack selection of the current project', [], async () => (await stack()).stackUnselect);

    leaf(stackCmd, 'rm [name]', 'Remove a stack and its configuration', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '-f, --force', description: 'remove the stack even if it still has resources (they stay in the cloud)' },
      { flags: '--preserve-config', description: 'keep Pulumi.<stack>.yaml' },
      { flags: '--remove-backups', description: 'remove backups (DIY backends only)', refused: "stackyard keeps no backup files; every state version stays in the stack's history" },
    ], async () => (await stack()).stackRm);

    leaf(stackCmd, 'rename <new-name>', 'Rename an existing stack', [STACK_FLAG], async () => (await stack()).stackRename);

    leaf(stackCmd, 'output [property]', 'Show a stack\'s output properties', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--show-secrets', description: 'display outputs marked as secret in plaintext' },
      { flags: '--shell', description: 'emit output as a shell script', refused: 'print the outputs with --json and convert them' },
    ], async () => (await stack()).stackOutput);

    leaf(stackCmd, 'export', 'Export a stack\'s deployment to standard out or a file', [
      STACK_FLAG,
      { flags: '--file <path>', description: 'write to this file instead of standard out' },
      { flags: '--show-secrets', description: 'include secrets in plaintext (as `plaintext` values)' },
      { flags: '--version <n>', description: 'export the deployment of this version', parse: positiveInteger },
    ], async () => (await stack()).stackExport);

    leaf(stackCmd, 'import', 'Import a deployment from standard in or a file into an existing stack', [
      STACK_FLAG,
      { flags: '--file <path>', description: 'read from this file instead of standard in' },
      { flags: '-f, --force', description: 'import even if the deployment looks wrong (other stack, broken references)' },
    ], async () => (await stack()).stackImport);

    leaf(stackCmd, 'history', 'Display history for a stack', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--full-dates', description: 'show full dates instead of relative ones' },
      { flags: '--page <n>', description: 'page of results (from 1)', parse: positiveInteger },
      { flags: '--page-size <n>', description: 'results per page (default 10)', parse: positiveInteger },
      { flags: '--show-secrets', description: 'show secret config values in plaintext' },
    ], async () => (await stack()).stackHistory);

    leaf(stackCmd, 'rollback', 'Restore an earlier version\'s state as a new version (recorded in history)', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--to <version>', description: 'the version to restore (see `stack history`)', parse: positiveInteger },
    ], async () => (await import('./rollback.js')).stackRollback);

    leaf(stackCmd, 'change-secrets-provider <provider>', 'Move a stack\'s config and state secrets to the stack\'s own key (provider `default`)', [
      STACK_FLAG,
    ], async () => (await import('./change-secrets-provider.js')).changeSecretsProvider);

    leaf(stackCmd, 'graph <filename>', 'Export a stack\'s dependency graph to a file (DOT)', [
      STACK_FLAG,
      { flags: '--ignore-parent-edges', description: 'leave out the edges from children to their parents' },
      { flags: '--ignore-dependency-edges', description: 'leave out the edges from dependencies to their dependents' },
      { flags: '--dependency-edge-color <color>', description: 'color of dependency edges (default #246C60)' },
      { flags: '--parent-edge-color <color>', description: 'color of parent edges (default #AA6639)' },
      { flags: '--short-node-name', description: 'label each node with the resource name instead of its URN' },
      { flags: '--dot-fragment <dot>', description: 'DOT text to insert at the top of the digraph' },
    ], async () => (await import('./stack-graph.js')).stackGraph);

    group(stackCmd, 'tag', 'Manage stack tags', (tag) => {
      leaf(tag, 'get <name>', 'Get a single stack tag value', [STACK_FLAG], async () => (await stack()).tagGet);
      leaf(tag, 'ls', 'List all stack tags', [STACK_FLAG, JSON_FLAG], async () => (await stack()).tagLs);
      leaf(tag, 'rm <name>', 'Remove a stack tag', [STACK_FLAG], async () => (await stack()).tagRm);
      leaf(tag, 'set <name> <value>', 'Set a stack tag', [STACK_FLAG], async () => (await stack()).tagSet);
    });
    registerStackPermissionCommands(stackCmd, { leaf, group }, SHARED_FLAGS);
  });

  leaf(program, 'new [template]', 'Create a new project and stack from a template folder or a .zip/.tar.gz template URL', [
    { flags: '-c, --config <key=value>', description: 'config to save (repeatable)', repeatable: true },
    { flags: '--config-path', description: 'config keys contain a path to a property in a map or list' },
    { flags: '-d, --description <text>', description: 'the project description (default: asked, or the template\'s)' },
    { flags: '--dir <dir>', description: 'the folder to create the project in (default: the current one)' },
    { flags: '-f, --force', description: 'create the project even if it overwrites existing files' },
    { flags: '-g, --generate-only', description: 'write the project only: no stack, no config' },
    { flags: '-n, --name <name>', description: 'the project name (default: asked, or the folder\'s name)' },
    { flags: '-o, --offline', description: 'use no network (a template URL is refused)' },
    { flags: '-s, --stack <name>', description: 'the stack to create, or an existing org/project/stack (default: asked, dev)' },
    { flags: '-y, --yes', description: 'skip prompts and take every default' },
    { flags: '--secrets-provider <provider>', description: 'secrets provider', refused: "each stack's secrets are always encrypted with the stack's own key, held by the backend" },
    { flags: '-l, --list-templates', description: 'list installed templates', refused: 'stackyard keeps no template catalogue; pass a template folder or archive URL' },
    { flags: '--ai <prompt>', description: 'generate a project', refused: 'Pulumi retired AI project generation' },
    { flags: '--language <language>', description: 'language of --ai', refused: 'Pulumi retired AI project generation' },
    { flags: '-t, --template-mode', description: 'template mode', refused: 'template mode is the only mode (Pulumi ignores the flag); drop it' },
    { flags: '--runtime-options <options>', description: 'language runtime options', refused: 'stackyard asks no language plugin for options; set runtime.options in Pulumi.yaml' },
    { flags: '--remote-stack-config', description: 'store config in an ESC environment', refused: 'stackyard has no ESC environments; config lives in Pulumi.<stack>.yaml' },
  ], async () => (await import('./new.js')).newProject).aliases(['create', 'setup']);

  leaf(program, 'migrate', 'Move stacks (state, tags, history, config) from a Pulumi DIY backend, a Pulumi-compatible service or another stackyard backend into this one (docs/migration.md)', [
    { flags: '--from <source>', description: 'file://<dir> or s3://<bucket>[/<prefix>] (Pulumi DIY), https://<service>, or a stackyard data folder' },
    { flags: '--from-local', description: 'from the `login --local` data folder' },
    { flags: '--from-token <token>', description: 'access token for a service source (or STACKYARD_FROM_TOKEN)' },
    { flags: '--stack <glob>', description: 'only stacks matching project/stack (repeatable; * and ?)', repeatable: true },
    { flags: '--org <org>', description: 'organization of the new stacks (default: your default organization)' },
    { flags: '--project-dir <dir>', description: 'also migrate the Pulumi.<stack>.yaml files of this project (repeatable)', repeatable: true },
    { flags: '--dry-run', description: 'print the plan (stacks, resources, secrets, conflicts) and change nothing' },
  ], async () => (await import('./migrate.js')).migrate);

  leaf(program, 'console', 'Open the current stack in the web console (signed in through a one-time code)', [
    { flags: '-s, --stack <name>', description: 'the name of the stack to view' },
    { flags: '--print-url', description: 'print the sign-in URL (valid once, for 60 seconds) instead of opening a browser' },
  ], async () => (await import('./console.js')).consoleCommand);
  leaf(program, 'cancel [stack]', 'Cancel a stack\'s currently running update, if any', [STACK_FLAG, YES_FLAG], async () => (await import('./cancel.js')).cancel);

  group(program, 'config', 'Manage configuration', (configCmd) => {
    addFlags(configCmd, [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--show-secrets', description: 'show secret values instead of [secret]' },
      { flags: '--open', description: 'open environments listed in the stack configuration', refused: 'stackyard has no ESC environments to open' },
      { flags: '--config-file <file>', description: 'use this file instead of Pulumi.<stack>.yaml', refused: 'config commands always use Pulumi.<stack>.yaml' },
      ...COMMAND_GLOBALS,
    ]);
    configCmd.action(run(async () => (await config()).configList));

    leaf(configCmd, 'get <key>', 'Get a single configuration value', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
      { flags: '--open', description: 'open environments', refused: 'stackyard has no ESC environments to open' },
    ], async () => (await config()).configGet);

    leaf(configCmd, 'set <key> [value]', 'Set a configuration value', [
      STACK_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
      { flags: '--secret', description: 'encrypt the value with the stack\'s key' },
      { flags: '--plaintext', description: 'store the value in plaintext' },
      { flags: '--type <type>', description: 'store the value as string, int, bool or float' },
    ], async () => (await config()).configSet);

    leaf(configCmd, 'copy [key]', 'Copy the configuration (or one key) to another stack, secrets encrypted again for it', [
      STACK_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
      { flags: '-d, --dest <stack>', description: 'the stack to copy to (default: the selected stack)' },
    ], async () => (await import('./config-copy.js')).configCopy).alias('cp');

    leaf(configCmd, 'set-all', 'Set multiple configuration values', [
      STACK_FLAG,
      { flags: '--path', description: 'the keys are paths to properties in maps or lists' },
      { flags: '--plaintext <key=value>', description: 'a value to store as plaintext (repeatable)', repeatable: true },
      { flags: '--secret <key=value>', description: 'a value to encrypt with the stack\'s key (repeatable)', repeatable: true },
      { flags: '--json <json>', description: 'values in the shape `config --json` prints' },
    ], async () => (await import('./config-set-all.js')).configSetAll);

    leaf(configCmd, 'refresh', 'Restore the configuration of the stack\'s last update', [
      STACK_FLAG,
      { flags: '-f, --force', description: 'overwrite the config file without making a backup' },
    ], async () => (await import('./config-refresh.js')).configRefresh);

    leaf(configCmd, 'rm <key>', 'Remove a configuration value', [
      STACK_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
    ], async () => (await config()).configRm);
  });

  group(program, 'state', 'Edit the current stack\'s state', (stateCmd) => {
    leaf(stateCmd, 'delete [urn]', 'Delete a resource from a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--force', description: 'delete a protected resource' },
      { flags: '--all', description: 'delete all resources in the stack' },
      { flags: '--target-dependents', description: 'also delete the resources that depend on it' },
    ], async () => (await state()).stateDelete);

    leaf(stateCmd, 'unprotect [urn]', 'Unprotect resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'unprotect all resources in the stack' },
    ], async () => (await state()).stateUnprotect);

    leaf(stateCmd, 'protect [urns...]', 'Protect resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'protect all resources in the stack' },
    ], async () => (await stateResources()).stateProtect);

    leaf(stateCmd, 'taint [urns...]', 'Taint resources in a stack\'s state: the next `up` replaces them', [STACK_FLAG, YES_FLAG], async () => (await stateResources()).stateTaint);

    leaf(stateCmd, 'untaint [urns...]', 'Untaint resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'untaint all resources in the stack' },
    ], async () => (await stateResources()).stateUntaint);

    leaf(stateCmd, 'rename [urn] [new-name]', 'Rename a resource in a stack\'s state', [STACK_FLAG, YES_FLAG], async () => (await stateResources()).stateRename);

    leaf(stateCmd, 'move [urns...]', 'Move resources (with their children) from one stack to another', [
      { flags: '--source <stack>', description: 'the stack to move resources from (default: the selected stack)' },
      { flags: '--dest <stack>', description: 'the stack to move resources to (default: the selected stack)' },
      { flags: '--include-parents', description: 'also move the parents of the resources' },
      { flags: '-y, --yes', description: 'move without asking' },
    ], async () => (await import('./state-move.js')).stateMove).alias('mv');

    leaf(stateCmd, 'repair', 'Clear the pending operations an interrupted update left in the state', [
      STACK_FLAG,
      YES_FLAG,
    ], async () => (await state()).stateRepair);
  });

  group(program, 'org', 'Manage organizations', (org) => {
    addFlags(org, COMMAND_GLOBALS);
    org.action(run(async () => (await import('./org-default.js')).orgSummary));
    leaf(org, 'get-default', 'Get the default organization for the current backend', [], async () => (await import('./org-default.js')).orgGetDefault);
    leaf(org, 'set-default <name>', 'Set the default organization for the current backend', [], async () => (await import('./org-default.js')).orgSetDefault);
    leaf(org, 'create <name>', 'Create an organization (administrators)', [], async () => (await admin()).orgCreate);
    leaf(org, 'ls', 'List the organizations you belong to', [JSON_FLAG], async () => (await admin()).orgLs);
    leaf(org, 'add-member <org> <login>', 'Add a user to an organization', [
      { flags: '--role <role>', description: 'admin, member or viewer (default member)' },
    ], async () => (await admin()).orgAddMember);
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
      const { runAdminBootstrap } = await import('./admin-bootstrap.js');
      await runAdminBootstrap(
        { table: String(opts.table ?? ''), user: typeof opts.user === 'string' ? opts.user : undefined },
        { stdout: (line) => process.stdout.write(`${line}\n`), stderr: (line) => process.stderr.write(`${line}\n`) },
      );
    });

    leaf(adminCmd, 'upgrade', 'Apply the data changes a new release needs to a deployed table (idempotent; uses your AWS credentials)', [
      { flags: '--table <name>', description: 'the deployment\'s DynamoDB table (TableName stack output)' },
    ], async () => async (_ctx, _args, opts) => {
      const { runAdminUpgrade } = await import('./admin-upgrade.js');
      await runAdminUpgrade({ table: String(opts.table ?? '') }, { stdout: (line) => process.stdout.write(`${line}\n`), stderr: (line) => process.stderr.write(`${line}\n`) });
    });
  });

  leaf(program, 'install', 'Install the current program\'s dependencies and the plugins it needs', [
    { flags: '--parallel <n>', description: 'the max number of concurrent plugin installs (less than 1: unbounded)', parse: integer },
    { flags: '--reinstall', description: 'reinstall a plugin even if it already exists' },
    { flags: '--no-plugins', description: 'skip installing plugins' },
    { flags: '--no-dependencies', description: 'skip installing dependencies' },
    { flags: '--use-language-version-tools', description: 'use language version tools to set up and install the language runtime' },
  ], async () => (await import('./install.js')).install);

  leaf(program, 'about', 'Print information about the stackyard environment (CLI, plugins, host, project, stack, backend)', [
    JSON_FLAG,
    STACK_FLAG,
    { flags: '-t, --transitive', description: 'include transitive dependencies', refused: 'stackyard lists the program\'s direct dependencies only' },
  ], async () => (await import('./about.js')).about);

  leaf(program, 'watch', 'Run `up` each time files of the project change', watchFlags(), async () => (await import('./watch.js')).watch);
  leaf(program, 'gen-completion <shell>', 'Generate completion scripts for bash, zsh or fish', [], async () => (await import('./gen-completion.js')).genCompletion(program)).alias('completion');
  leaf(program, 'version', "Print stackyard's version number", [], async () => (await import('./version.js')).version);

  // Pulumi's flags are accepted so its command lines parse; the command itself answers that it cannot run.
  leaf(program, 'logs', 'Show aggregated resource logs for a stack (stackyard has no log provider)', [
    STACK_FLAG,
    JSON_FLAG,
    { flags: '--config-file <file>', description: 'use this configuration file' },
    { flags: '-f, --follow', description: 'follow the log stream' },
    { flags: '--since <time>', description: 'only logs newer than a duration or timestamp' },
    { flags: '-r, --resource <resource>', description: 'only logs of this resource' },
  ], async () => (await import('./logs.js')).logs);
  leaf(program, 'convert [args...]', 'Convert programs from other tools and languages (not supported by stackyard)', [], async () => (await import('./convert.js')).convert)
    .allowUnknownOption();

  group(program, 'plugin', 'Manage language and resource provider plugins (the cache shared with pulumi; docs/cli.md)', (pluginCmd) => {
    leaf(pluginCmd, 'ls', 'List plugins', [
      { flags: '-p, --project', description: 'list only the plugins used by the current project' },
      JSON_FLAG,
    ], async () => (await pluginCommands.ls()).pluginLs).alias('list');
    leaf(pluginCmd, 'install [kind] [name] [version]', 'Install one or more plugins (with no arguments: those the current project needs)', [
      { flags: '--server <url>', description: 'a URL to download plugins from' },
      { flags: '--exact', description: 'force installation of an exact version match' },
      { flags: '-f, --file <path>', description: 'install a plugin from a binary, folder or tarball, instead of downloading it' },
      { flags: '--reinstall', description: 'reinstall a plugin even if it already exists' },
      { flags: '--checksum <sha256>', description: 'the expected SHA256 checksum for the plugin archive' },
      { flags: '--parallel <n>', description: 'the max number of concurrent installs (less than 1: unbounded)', parse: integer },
    ], async () => (await pluginCommands.install()).pluginInstall);
    leaf(pluginCmd, 'rm [kind] [name] [version]', 'Remove one or more plugins from the download cache (VERSION may be a range)', [
      { flags: '-a, --all', description: 'remove all plugins' },
      YES_FLAG,
    ], async () => (await pluginCommands.rm()).pluginRm).aliases(['remove', 'delete']);
  });

  group(program, 'hook', 'Manage webhooks, Lambda destinations and update gates (docs/hooks.md)', (hookCmd) => {
    leaf(hookCmd, 'add <name>', 'Add a hook: events to an HTTPS URL or a Lambda function, or a gate asked before each update', [
      ...HOOK_SCOPE_FLAGS,
      { flags: '--url <url>', description: 'post events to this https:// URL' },
      { flags: '--secret <secret>', description: 'sign deliveries to --url with this secret (or set STACKYARD_HOOK_SECRET)' },
      { flags: '--lambda <arn>', description: 'invoke this Lambda function instead' },
      { flags: '--events <list>', description: 'comma-separated events to receive (default: all)' },
      { flags: '--gate', description: 'ask the hook before every update (not previews); it may refuse the update' },
      { flags: '--fail-open', description: 'let updates start when the gate fails or times out (default: refuse them)' },
    ], async () => (await hook()).hookAdd);
    leaf(hookCmd, 'ls', 'List the hooks of a stack (with its organization\'s) or of an organization', [...HOOK_SCOPE_FLAGS, JSON_FLAG], async () => (await hook()).hookLs);
    leaf(hookCmd, 'rm <name>', 'Remove a hook', HOOK_SCOPE_FLAGS, async () => (await hook()).hookRm);
    leaf(hookCmd, 'ping <name>', 'Send a ping to a hook now and show the result', HOOK_SCOPE_FLAGS, async () => (await hook()).hookPing);
    leaf(hookCmd, 'deliveries <name>', 'Show a hook\'s recent deliveries and their attempts, newest first', [
      ...HOOK_SCOPE_FLAGS,
      JSON_FLAG,
      { flags: '--limit <n>', description: 'how many deliveries (default 50, at most 200)', parse: positiveInteger },
    ], async () => (await hook()).hookDeliveries);
    leaf(hookCmd, 'redeliver <name> <delivery-id>', 'Deliver a delivery\'s payload again, as a new delivery', HOOK_SCOPE_FLAGS, async () => (await hook()).hookRedeliver);
  });

  for (const command of ENGINE_COMMANDS) {
    const cmd = program.command(command).description(ENGINE_COMMAND_DESCRIPTIONS[command]);
    declareLater(cmd, () => {
      declareEngineCommand(cmd, command, async () => (await import('./engine-stack.js')).createEngineStackResolver(() => program.opts()));
      // The engine flags include --color, -v and --tracing; the remaining global ones are added here.
      addFlags(cmd, COMMAND_GLOBALS.filter((f) => !/^(--color|-v,|--tracing)/.test(f.flags)));
    });
  }
  inheritSettings(program);
}

/**
 * Commands built with `new Command` (serve) do not inherit the program's settings; without this a
 * usage error in them would exit 1 from inside commander instead of reaching main's exit code 2.
 */
function inheritSettings(parent: Command): void {
  for (const sub of parent.commands) {
    sub.copyInheritedSettings(parent);
    inheritSettings(sub);
  }
}
