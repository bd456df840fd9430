/** `deployment settings get`: the stack's deployment settings as JSON (secret values only as ciphertext). */
import type { CommandHandler } from './types.js';

export const deploymentSettingsGet: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  ctx.json(await backend.deployments().getSettings(ref));
};
