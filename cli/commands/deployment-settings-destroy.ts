/** `deployment settings destroy` (also `down`, `dn`, `clear`): deletes all the stack's deployment settings. */
import type { CommandHandler } from './types.js';

export const deploymentSettingsDestroy: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const name = await ctx.displayName(ref);
  await ctx.confirm(opts.yes, `delete the deployment settings of ${name}`, `This will delete all the deployment settings of '${name}'.`);
  await backend.deployments().deleteSettings(ref);
  ctx.out(`All the deployment settings of '${name}' were deleted.`);
};
