/**
 * The types every command shares. They live apart from register.ts, which imports every command, so that no
 * command imports the registry that loads it.
 */
import type { CommandContext } from './context.js';

/** A command body: the context, the positional arguments, and the command's own options. */
export type CommandHandler = (ctx: CommandContext, args: (string | undefined)[], opts: Record<string, unknown>) => Promise<void>;
