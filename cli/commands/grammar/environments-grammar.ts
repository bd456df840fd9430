/**
 * `env` (alias `esc`) and its subcommands, in ESC's grammar (`cmd/esc/cli/env*.go`), as `pulumi env` embeds it:
 * init, edit, get, set, rm, ls, open, run, diff, clone and version (history, rollback, tag, tag ls, tag rm).
 */
import type { Command } from 'commander';
import { addFlags, type FlagSpec } from '../pulumi-flags.js';
import { COMMAND_GLOBALS, group, leaf, run } from './tree.js';

const basic = () => import('../env/env-basic.js');
const get = () => import('../env/env-get.js');
const open = () => import('../env/env-open.js');
const edit = () => import('../env/env-edit.js');
const version = () => import('../env/env-version.js');

const ENV_FLAG: FlagSpec = { flags: '--env <name>', description: 'The name of the environment to operate on.' };
const SHOW_SECRETS: FlagSpec = { flags: '--show-secrets', description: 'Show static secrets in plaintext rather than ciphertext' };
const UTC: FlagSpec = { flags: '--utc', description: 'display times in UTC' };
const OUTPUT: FlagSpec = { flags: '--output <format>', description: 'output format: "text" (default) or "json"' };
const PAGER: FlagSpec = { flags: '--pager <command>', description: 'the command to use to page through the output', refused: 'stackyard prints the whole list; pipe it to a pager' };
const DRAFT: FlagSpec = {
  flags: '--draft [change-request-id]',
  description: 'create a draft (change request) rather than saving changes directly',
  refused: 'Stackyard has no drafts or change requests yet: save without --draft',
};
const LIFETIME: FlagSpec = { flags: '-l, --lifetime <duration>', description: 'the lifetime of the opened environment in the form HhMm (e.g. 2h, 1h30m, 15m)' };
const FILE_INIT: FlagSpec = { flags: '-f, --file <file>', description: 'the file to use to initialize the environment, if any. Pass `-` to read from standard input.' };

/** Declares `env` under the program. */
export function registerEnvironmentsGrammar(program: Command): void {
  group(program, 'env', 'Manage environments', (envCmd) => {
    envCmd.alias('esc');
    leaf(envCmd, 'init [name]', 'Create an empty environment with the given name.', [ENV_FLAG, FILE_INIT], async () => (await basic()).envInit).alias('new');
    leaf(envCmd, 'ls', 'List environments.', [
      { flags: '-o, --organization <org>', description: 'Filter returned environments to those in a specific organization' },
      { flags: '-p, --project <project>', description: 'Filter returned environments to those in a specific project' },
      OUTPUT,
    ], async () => (await basic()).envLs);
    leaf(envCmd, 'rm [name] [path]', 'Remove an environment or a value from an environment.', [
      ENV_FLAG,
      { flags: '-y, --yes', description: 'Skip confirmation prompts, and proceed with removal anyway' },
    ], async () => (await basic()).envRm);
    leaf(envCmd, 'clone [source] [destination]', 'Clone an existing environment into a new environment.', [
      ENV_FLAG,
      { flags: '--preserve-history', description: 'preserve history of the environment being cloned' },
      { flags: '--preserve-access', description: 'preserve the same team access on the environment being cloned' },
      { flags: '--preserve-env-tags', description: 'preserve any tags on the environment being cloned', refused: 'Stackyard has no environment tags yet: clone without --preserve-env-tags' },
      { flags: '--preserve-rev-tags', description: 'preserve any tags on the environment revisions being cloned' },
    ], async () => (await basic()).envClone);
    leaf(envCmd, 'get [name] [path]', 'Get a value within an environment.', [
      ENV_FLAG,
      { flags: '--definition', description: 'Set to print just the definition.' },
      { flags: '--value <format>', description: "Set to print just the value in the given format. May be 'dotenv', 'json', 'detailed', 'shell' or 'string'" },
      SHOW_SECRETS,
    ], async () => (await get()).envGet);
    leaf(envCmd, 'diff [name] [compare]', 'Show changes between versions.', [
      ENV_FLAG,
      { flags: '-f, --format <format>', description: "the output format to use. May be 'dotenv', 'json', 'detailed', 'shell' or 'string'" },
      SHOW_SECRETS,
      { flags: '--path <path>', description: 'Show the diff for a specific path' },
    ], async () => (await get()).envDiff);
    leaf(envCmd, 'set [name] [path] [value]', 'Set a value within an environment.', [
      ENV_FLAG,
      { flags: '--secret', description: 'true to mark the value as secret' },
      { flags: '--plaintext', description: 'true to leave the value in plaintext' },
      { flags: '--string', description: 'true to treat the value as a string rather than attempting to parse it as YAML' },
      { flags: '-f, --file <file>', description: 'If set, the value is read from the specified file. Pass `-` to read from standard input.' },
      DRAFT,
    ], async () => (await edit()).envSet);
    leaf(envCmd, 'edit [name]', 'Edit an environment definition', [
      ENV_FLAG,
      { flags: '--editor <command>', description: 'the command to use to edit the environment definition' },
      { flags: '-f, --file <file>', description: 'the file that contains the updated environment, if any. Pass `-` to read from standard input.' },
      SHOW_SECRETS,
      DRAFT,
    ], async () => (await edit()).envEdit);
    leaf(envCmd, 'open [name] [path]', 'Open the environment with the given name.', [
      ENV_FLAG,
      LIFETIME,
      { flags: '-f, --format <format>', description: "the output format to use. May be 'dotenv', 'json', 'yaml', 'detailed', 'shell' or 'string'" },
      { flags: '--draft <change-request-id>', description: 'open an environment draft', refused: 'Stackyard has no drafts or change requests yet: open without --draft' },
    ], async () => (await open()).envOpen);
    leaf(envCmd, 'run [args...]', 'Open the environment with the given name and run a command.', [
      ENV_FLAG,
      { flags: '-i, --interactive', description: 'true to treat the command as interactive and disable output filters' },
      LIFETIME,
      { flags: '--draft <change-request-id>', description: 'open an environment draft', refused: 'Stackyard has no drafts or change requests yet: run without --draft' },
    ], async () => (await open()).envRun);
    group(envCmd, 'version', 'Manage versions', (versionCmd) => {
      versionCmd.arguments('[name]');
      addFlags(versionCmd, [ENV_FLAG, UTC, ...COMMAND_GLOBALS]);
      versionCmd.action(run(async () => (await version()).envVersion));
      leaf(versionCmd, 'history [name]', 'Show revision history.', [ENV_FLAG, PAGER, UTC, OUTPUT], async () => (await version()).envVersionHistory);
      leaf(versionCmd, 'rollback [name]', 'Roll back to a specific version', [ENV_FLAG, DRAFT], async () => (await version()).envVersionRollback);
      group(versionCmd, 'tag', 'Manage tagged versions', (tagCmd) => {
        tagCmd.arguments('[name] [version]');
        addFlags(tagCmd, [ENV_FLAG, UTC, ...COMMAND_GLOBALS]);
        tagCmd.action(run(async () => (await version()).envVersionTag));
        leaf(tagCmd, 'ls [name]', 'List tagged versions.', [ENV_FLAG, PAGER, UTC, OUTPUT], async () => (await version()).envVersionTagLs);
        leaf(tagCmd, 'rm [name]', 'Remove a tagged version.', [ENV_FLAG], async () => (await version()).envVersionTagRm);
      });
    });
  });
}
