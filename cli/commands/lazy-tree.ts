/**
 * Declares the command tree as commander reaches it. One run parses one path (`stack ls`); building all 89 commands
 * and their 1,263 options took about 11 ms of CPU on every start, a quarter of `node -e 0`.
 *
 * A command is created up front with its name, arguments and description only; its flags and subcommands are
 * declared just before commander parses it (its parent's `preSubcommand` hook). So every command commander parses,
 * and every parent it looks at for suggestions, is complete: parsing, errors and exit codes are those of the whole
 * tree. Help declares the whole tree first, because a listing shows `[options]` for a subcommand with options.
 */
import type { Command } from 'commander';

const pending = new WeakMap<Command, () => void>();

/** Runs `declare` (adding `cmd`'s flags, action and subcommands) when commander first needs `cmd`. */
export function declareLater(cmd: Command, declare: () => void): Command {
  pending.set(cmd, declare);
  return cmd;
}

/** Runs what `cmd` left for later, once. */
function declareNow(cmd: Command): void {
  const declare = pending.get(cmd);
  if (!declare) return;
  pending.delete(cmd);
  declare();
}

/** Declares every command under `cmd` (and `cmd`): what help and the tests that walk the whole tree see. */
export function declareTree(cmd: Command): void {
  declareNow(cmd);
  for (const sub of cmd.commands) declareTree(sub);
}

/** Makes `parent` declare each subcommand just before commander parses it. */
export function declareOnDispatch(parent: Command): void {
  parent.hook('preSubcommand', (_parent, sub) => {
    if (!pending.has(sub)) return;
    declareNow(sub);
    // Commander saved the subcommand's option values just before this hook, to restore them if the same tree is
    // parsed again; save them again so they include the defaults of the options just declared (`--no-select`).
    sub.saveStateBeforeParse();
  });
}

/** Makes help, wherever it is printed (`--help`, `help`, after a usage error), see the whole tree. */
export function declareTreeBeforeHelp(program: Command): void {
  program.on('beforeAllHelp', () => declareTree(program));
}
