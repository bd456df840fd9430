/**
 * The pieces every command group's grammar is built from: Pulumi's shared and global flags, and `leaf`/`group`,
 * which declare a command's flags and subcommands only when commander reaches it (lazy-tree.ts), so
 * `stackyard --version` loads nothing but commander.
 */
import { Command, InvalidArgumentError } from 'commander';
import { declareLater, declareOnDispatch } from '../lazy-tree.js';
import { INHERITED_REFUSED, LOGGING_FLAGS, addFlags, type FlagSpec } from '../pulumi-flags.js';
import type { CommandHandler } from '../types.js';

export const STACK_FLAG: FlagSpec = { flags: '-s, --stack <name>', description: 'the stack to operate on (default: the selected stack)' };

export const YES_FLAG: FlagSpec = { flags: '-y, --yes', description: 'skip confirmation prompts' };

export const JSON_FLAG: FlagSpec = { flags: '-j, --json', description: 'emit output as JSON' };

export const SHARED_FLAGS = { json: JSON_FLAG, stack: STACK_FLAG, yes: YES_FLAG };

/**
 * `pulumi`'s global flags, declared on every command: options are positional (each command owns the flags written
 * after its name), so a subcommand's `--version <n>` or `--stack` is never taken by the program.
 */
const GLOBAL_FLAGS: FlagSpec[] = [
  { flags: '-C, --cwd <dir>', description: 'run as if started in <dir>' },
  { flags: '--non-interactive', description: 'never prompt' },
  { flags: '--color <mode>', description: 'colorize output: always, never, raw, auto' },
  ...LOGGING_FLAGS,
];

/** `pulumi`'s global flags that stackyard refuses (each says why). */
export const GLOBAL_REFUSED: FlagSpec[] = [
  { flags: '-e, --emoji', description: 'enable emojis in the output', refused: 'stackyard prints no emoji' },
  { flags: '-Q, --fully-qualify-stack-names', description: 'show fully-qualified stack names', refused: 'names are shown short within the current project and organization and in full otherwise' },
  { flags: '--disable-integrity-checking', description: 'disable integrity checking of checkpoint files', refused: 'every state is checked before it is saved; a broken state is never accepted' },
  { flags: '--memprofilerate <rate>', description: 'memory profile rate', refused: 'stackyard is not a Go program and writes no memory profiles' },
  { flags: '--profiling <file>', description: 'emit CPU and memory profiles', refused: 'stackyard is not a Go program and writes no CPU profiles' },
];

/** The global flags as every command declares them: accepted, but listed only in the program's help. */
export const COMMAND_GLOBALS: FlagSpec[] = [...GLOBAL_FLAGS, ...GLOBAL_REFUSED, ...INHERITED_REFUSED].map((spec) => ({ ...spec, hidden: true }));

export function run(load: () => Promise<CommandHandler>) {
  return async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const args = params.slice(0, -2) as (string | undefined)[];
    const [{ CommandContext }, handler] = await Promise.all([import('../context.js'), load()]);
    const ctx = new CommandContext(command.optsWithGlobals());
    try {
      // Flags given before the command's name belong to its parents: read the merged set.
      await handler(ctx, args, command.optsWithGlobals());
    } finally {
      await ctx.close();
    }
  };
}

export function leaf(
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
export function group(parent: Command, name: string, description: string, declare: (cmd: Command) => void): Command {
  const cmd = parent.command(name).description(description);
  declareOnDispatch(cmd);
  return declareLater(cmd, () => declare(cmd));
}

/** An integer flag value (negative allowed), as cobra's IntVar reads it. */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer');
  return Number(value);
}

