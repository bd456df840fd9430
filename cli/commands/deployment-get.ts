/** `deployment get <deployment-id>`: one deployment (by id or per-stack version), as JSON. */
import { findRun } from './deployment-shared.js';
import type { CommandHandler } from './types.js';

export const deploymentGet: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  ctx.json(await findRun(backend.deployments(), ref, args[0]!));
};
