/** `stack` and its subcommands, in Pulumi's grammar. */
import type { Command } from 'commander';
import { registerStackPermissionCommands } from '../access-register.js';
import { addFlags, positiveInteger } from '../pulumi-flags.js';
import { registerStackApprovalsGrammar } from './plan-grammar.js';
import { registerStackDriftGrammar, registerStackScheduleGrammar } from './schedule-grammar.js';
import { COMMAND_GLOBALS, JSON_FLAG, SHARED_FLAGS, STACK_FLAG, YES_FLAG, group, leaf, run } from './tree.js';

const stack = () => import('../stack.js');

export function registerStackGrammar(program: Command): void {
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
      { flags: '--remote-config', description: 'store the stack\'s configuration in the ESC environment <project>/<stack> (a service backend only)' },
    ], async () => (await stack()).stackInit);

    leaf(stackCmd, 'ls', 'List stacks', [
      JSON_FLAG,
      { flags: '-a, --all', description: 'list all stacks instead of just those of the current project' },
      { flags: '-o, --organization <org>', description: 'only stacks of this organization' },
      { flags: '-p, --project <project>', description: 'only stacks of this project' },
      { flags: '-t, --tag <tag>', description: 'only stacks with this tag (name or name=value)' },
    ], async () => (await import('../stack-ls.js')).stackLs);

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
    ], async () => (await import('../stack-history.js')).stackHistory);

    leaf(stackCmd, 'diff [from] [to]', 'Show the resources added, removed, replaced and updated between two versions (default: the last two)', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--show-secrets', description: 'show secret values in plaintext (needs permission to decrypt the stack\'s secrets)' },
    ], async () => (await import('../stack-diff.js')).stackDiff);

    leaf(stackCmd, 'rollback', 'Restore an earlier version\'s state as a new version (recorded in history)', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--to <version>', description: 'the version to restore (see `stack history`)', parse: positiveInteger },
    ], async () => (await import('../rollback.js')).stackRollback);

    leaf(stackCmd, 'change-secrets-provider <provider>', 'Move a stack\'s config and state secrets to the stack\'s own key (provider `default`)', [
      STACK_FLAG,
    ], async () => (await import('../change-secrets-provider.js')).changeSecretsProvider);

    leaf(stackCmd, 'graph <filename>', 'Export a stack\'s dependency graph to a file (DOT)', [
      STACK_FLAG,
      { flags: '--ignore-parent-edges', description: 'leave out the edges from children to their parents' },
      { flags: '--ignore-dependency-edges', description: 'leave out the edges from dependencies to their dependents' },
      { flags: '--dependency-edge-color <color>', description: 'color of dependency edges (default #246C60)' },
      { flags: '--parent-edge-color <color>', description: 'color of parent edges (default #AA6639)' },
      { flags: '--short-node-name', description: 'label each node with the resource name instead of its URN' },
      { flags: '--dot-fragment <dot>', description: 'DOT text to insert at the top of the digraph' },
    ], async () => (await import('../stack-graph.js')).stackGraph);

    group(stackCmd, 'tag', 'Manage stack tags', (tag) => {
      leaf(tag, 'get <name>', 'Get a single stack tag value', [STACK_FLAG], async () => (await stack()).tagGet);
      leaf(tag, 'ls', 'List all stack tags', [STACK_FLAG, JSON_FLAG], async () => (await stack()).tagLs);
      leaf(tag, 'rm <name>', 'Remove a stack tag', [STACK_FLAG], async () => (await stack()).tagRm);
      leaf(tag, 'set <name> <value>', 'Set a stack tag', [STACK_FLAG], async () => (await stack()).tagSet);
    });
    registerStackApprovalsGrammar(stackCmd);
    registerStackScheduleGrammar(stackCmd);
    registerStackDriftGrammar(stackCmd);
    registerStackPermissionCommands(stackCmd, { leaf, group }, SHARED_FLAGS);
  });
}
