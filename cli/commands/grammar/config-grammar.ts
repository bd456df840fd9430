/** `config` and its subcommands, in Pulumi's grammar. */
import type { Command } from 'commander';
import { addFlags, positiveInteger } from '../pulumi-flags.js';
import { InvalidArgumentError } from 'commander';
import { registerConfigEnvGrammar } from './env-grammar.js';
import { COMMAND_GLOBALS, JSON_FLAG, STACK_FLAG, group, leaf, run } from './tree.js';

const config = () => import('../config.js');

/** A cobra bool flag's value: `--open`, `--open=true`, `--open=false`. */
function cobraBool(value: string | undefined): boolean {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('must be true or false');
}

export function registerConfigGrammar(program: Command): void {
  group(program, 'config', 'Manage configuration', (configCmd) => {
    addFlags(configCmd, [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--show-secrets', description: 'show secret values instead of [secret]' },
      { flags: '--version <n>', description: 'show the config recorded with this version\'s update (see `stack history`)', parse: positiveInteger },
      { flags: '--open [bool]', description: 'open and resolve the environments listed in the stack configuration (default: as --show-secrets)', parse: cobraBool },
      { flags: '--config-file <file>', description: 'use this file instead of Pulumi.<stack>.yaml', refused: 'config commands always use Pulumi.<stack>.yaml' },
      ...COMMAND_GLOBALS,
    ]);
    configCmd.action(run(async () => (await config()).configList));

    leaf(configCmd, 'get <key>', 'Get a single configuration value', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
      { flags: '--open [bool]', description: 'open and resolve the environments listed in the stack configuration (default true)', parse: cobraBool },
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
    ], async () => (await import('../config-copy.js')).configCopy).alias('cp');

    leaf(configCmd, 'set-all', 'Set multiple configuration values', [
      STACK_FLAG,
      { flags: '--path', description: 'the keys are paths to properties in maps or lists' },
      { flags: '--plaintext <key=value>', description: 'a value to store as plaintext (repeatable)', repeatable: true },
      { flags: '--secret <key=value>', description: 'a value to encrypt with the stack\'s key (repeatable)', repeatable: true },
      { flags: '--json <json>', description: 'values in the shape `config --json` prints' },
    ], async () => (await import('../config-set-all.js')).configSetAll);

    leaf(configCmd, 'refresh', 'Restore the configuration of the stack\'s last update', [
      STACK_FLAG,
      { flags: '-f, --force', description: 'overwrite the config file without making a backup' },
    ], async () => (await import('../config-refresh.js')).configRefresh);

    leaf(configCmd, 'rm <key>', 'Remove a configuration value', [
      STACK_FLAG,
      { flags: '--path', description: 'the key contains a path to a property in a map or list' },
    ], async () => (await config()).configRm);

    registerConfigEnvGrammar(configCmd);
  });
}
