/** `stack rollback --to <version>`: an earlier version's state, published as a new version. */
import { isNotFound } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import type { CommandHandler } from './types.js';

export const stackRollback: CommandHandler = async (ctx, _args, opts) => {
  const to = opts.to as number | undefined;
  if (to === undefined) throw new UserError('missing --to <version>', 'Pick a version from `stackyard stack history`.');
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const name = await ctx.displayName(ref);
  const details = await backend.getStack(ref).catch((error: unknown) => {
    if (isNotFound(error)) throw new UserError(`no stack named '${name}' found`, 'List stacks with `stackyard stack ls`.');
    throw error;
  });
  if (to > details.version) {
    throw new UserError(
      `stack '${name}' has no version ${to}: it is at version ${details.version}`,
      'Pick a version from `stackyard stack history`.',
    );
  }
  await ctx.confirm(opts.yes, `roll back stack ${name}`, `This replaces the state of '${name}' with that of version ${to} (as a new version).`);
  const { version } = await backend.rollback(ref, to);
  ctx.out(`Rolled back stack '${name}' to version ${to}; the restored state is version ${version}.`);
  ctx.note('The cloud resources are unchanged: run `stackyard preview` (or `refresh`) to compare them with the restored state.');
};
