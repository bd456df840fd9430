/** `deployment cancel <deployment-id>`: stops a queued or running deployment, as `pulumi deployment cancel`. */
import { findRun } from './deployment-shared.js';
import type { CommandHandler } from './types.js';

export const deploymentCancel: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const deployments = backend.deployments();
  const run = await findRun(deployments, ref, args[0]!);
  await ctx.confirm(opts.yes, `cancel deployment ${run.id}`, `This will cancel deployment '${run.id}' of '${await ctx.displayName(ref)}'.`);
  const cancelled = await deployments.cancel(ref, run.id);
  if (opts.output === 'json') return ctx.json(cancelled);
  ctx.out(`Cancellation requested for deployment '${run.id}'.`);
};
