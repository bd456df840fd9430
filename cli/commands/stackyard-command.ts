/**
 * The command class of the whole tree: an unknown subcommand fails the way Pulumi's does (its `rattler` package), for
 * a group (`stackyard stak`) and for a command that also runs on its own (`stackyard stack lss`), with exit code 2.
 * The suggestions need the whole tree and a string distance, so main renders them from a module loaded only then.
 */
import { Command, CommanderError } from 'commander';

/** `stackyard stack tag`: the names from the program down to `command`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** A word that names no subcommand of `command`; `words` are it and the words after it. */
export class UnknownCommandError extends CommanderError {
  constructor(
    readonly command: Command,
    readonly words: string[],
  ) {
    super(2, 'commander.unknownCommand', `unknown command "${words[0]}" for "${commandPath(command)}"`);
  }
}

/** Commander's `Command`, with Pulumi's answer to an unknown subcommand. */
export class StackyardCommand extends Command {
  override createCommand(name?: string): Command {
    return new StackyardCommand(name);
  }

  /** Commander calls this for a word that names no subcommand of a command without an action of its own. */
  unknownCommand(): never {
    throw new UnknownCommandError(this, this.args);
  }

  /**
   * Commander calls this for more words than a command's arguments take. Under a command with subcommands the first
   * extra word was meant as a subcommand, as Pulumi reads it.
   */
  _excessArguments(received: string[]): void {
    const self = this as unknown as { _allowExcessArguments: boolean };
    if (this.commands.length === 0 || self._allowExcessArguments) {
      (Command.prototype as unknown as { _excessArguments(received: string[]): void })._excessArguments.call(this, received);
      return;
    }
    throw new UnknownCommandError(this, received.slice(this.registeredArguments.length));
  }
}
