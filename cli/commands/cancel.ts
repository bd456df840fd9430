/** `cancel`: stops the update that holds a stack, so its lease is released and the running client stops. */
import { isNotFound } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import type { CommandHandler } from './types.js';

export const cancel: CommandHandler = async (ctx, args, opts) => {
  const given = args[0];
  if (given && typeof opts.stack === 'string' && opts.stack !== given) {
    throw new UserError('only one of --stack or the stack name argument may be given, not both');
  }
  const { backend, ref } = await ctx.resolveStack(given ?? (opts.stack as string | undefined));
  const name = await ctx.displayName(ref);
  const stack = await backend.getStack(ref).catch((error: unknown) => {
    if (isNotFound(error)) throw new UserError(`no stack named '${name}' found`, 'List stacks with `stackyard stack ls`.');
    throw error;
  });
  if (!stack.activeUpdate) {
    throw new UserError(`stack '${name}' has no update in progress; there is nothing to cancel`);
  }
  await ctx.confirm(
    opts.yes,
    `cancel the running update of ${name}`,
    `This will irreversibly cancel the currently running update for '${name}'!`,
    name,
  );
  await backend.cancelUpdate(ref, stack.activeUpdate);
  ctx.out(`The currently running update for '${name}' has been canceled!`);
};
