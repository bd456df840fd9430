/** `deployment list` (also `ls`): a stack's deployments, newest first, as `pulumi deployment list`. */
import { UserError } from '../output/errors.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

export const deploymentList: CommandHandler = async (ctx, _args, opts) => {
  if (opts.all === true && opts.count !== undefined) throw new UserError('--all and --count are mutually exclusive');
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const all = await backend.deployments().list(ref);
  const shown = opts.count === undefined ? all : all.slice(0, opts.count as number);
  if (opts.output === 'json') return ctx.json(shown);
  if (shown.length === 0) return ctx.out('No deployments found for this stack.');
  ctx.out(
    table(
      ['VERSION', 'ID', 'OPERATION', 'STATUS', 'CREATED', 'REQUESTED BY'],
      shown.map((run) => [String(run.version), run.id, run.pulumiOperation, run.status, run.created, run.requestedBy.githubLogin]),
    ),
  );
  ctx.out(`\nShowing ${shown.length} of ${all.length} deployment(s)`);
};
