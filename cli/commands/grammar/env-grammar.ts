/** `config env` and its subcommands, in Pulumi's grammar (pkg/cmd/pulumi/config/config_env*.go). */
import type { Command } from 'commander';
import { JSON_FLAG, STACK_FLAG, group, leaf } from './tree.js';

const configEnv = () => import('../env/config-env.js');

const EDIT_FLAGS = [
  STACK_FLAG,
  { flags: '--show-secrets', description: 'show secret values in plaintext instead of ciphertext' },
  { flags: '-y, --yes', description: 'save changes without prompting' },
];

/** Declares `config env init|add|rm|ls` under `config`. */
export function registerConfigEnvGrammar(configCmd: Command): void {
  group(configCmd, 'env', 'Manage ESC environments for a stack', (envCmd) => {
    leaf(envCmd, 'init', 'Creates an environment for a stack', [
      STACK_FLAG,
      { flags: '--env <name>', description: 'the name of the environment to create (default: "<project name>/<stack name>")' },
      { flags: '--show-secrets', description: 'show secret values in plaintext instead of ciphertext' },
      { flags: '--keep-config', description: 'do not remove configuration values from the stack after creating the environment' },
      { flags: '-y, --yes', description: 'save the created environment without prompting' },
    ], async () => (await import('../env/config-env-init.js')).configEnvInit);
    leaf(envCmd, 'add <environment-name...>', 'Add environments to a stack', EDIT_FLAGS, async () => (await configEnv()).configEnvAdd);
    leaf(envCmd, 'remove <environment-name>', 'Remove environment from a stack', EDIT_FLAGS, async () => (await configEnv()).configEnvRm).aliases(['rm', 'delete']);
    leaf(envCmd, 'list', 'Lists imported environments.', [
      STACK_FLAG,
      JSON_FLAG,
      { flags: '-o, --output <format>', description: 'output format: default or json' },
    ], async () => (await configEnv()).configEnvLs).alias('ls');
  });
}
