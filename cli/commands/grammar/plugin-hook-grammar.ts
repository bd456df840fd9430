/** `plugin` (the cache shared with pulumi) and `hook` (webhooks, Lambda destinations, update gates). */
import type { Command } from 'commander';
import { positiveInteger, type FlagSpec } from '../pulumi-flags.js';
import { JSON_FLAG, YES_FLAG, group, integer, leaf } from './tree.js';

const hook = () => import('../hook.js');
const pluginCommands = {
  ls: () => import('../plugin-ls.js'),
  install: () => import('../plugin-install.js'),
  rm: () => import('../plugin-rm.js'),
};

/** Every hook command works on an organization's hooks or one stack's (default: the selected stack). */
const HOOK_SCOPE_FLAGS: FlagSpec[] = [
  { flags: '-s, --stack <name>', description: 'the stack whose hooks to use (default: the selected stack)' },
  { flags: '--org <org>', description: 'the organization\'s hooks instead, which see every stack of it' },
];

export function registerPluginAndHookGrammar(program: Command): void {
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
      { flags: '--format <format>', description: 'write deliveries to --url as raw JSON (default), a slack message or an ms_teams card' },
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
}
