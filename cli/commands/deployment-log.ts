/**
 * `deployment log <deployment-version>` (also `logs`): a run's log, as `pulumi deployment log`; `--follow` (ours)
 * prints lines as they come until the run ends.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { DeploymentsBackend } from '../backend/deployments-backend.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import { findRun } from './deployment-shared.js';
import type { CommandHandler } from './types.js';

const PAGE = 1000;
const POLL_MS = 500;

/** Prints the log from `offset` until the service says no more can come. */
export async function followLog(ctx: CommandContext, deployments: DeploymentsBackend, ref: StackRef, id: string, offset: number): Promise<void> {
  for (let next = offset; ; ) {
    const page = await deployments.logs(ref, id, { offset: next, count: PAGE });
    for (const line of page.lines) ctx.out(line.line);
    if (page.nextToken === undefined) return;
    const advanced = Number(page.nextToken);
    if (advanced === next) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    next = advanced;
  }
}

export const deploymentLog: CommandHandler = async (ctx, args, opts) => {
  if (opts.all === true && opts.count !== undefined) throw new UserError('if any flags in the group [count all] are set none of the others can be; [all count] were all set');
  if (opts.output !== undefined && opts.output !== 'json' && opts.output !== 'default') throw new UserError(`unknown output format "${String(opts.output)}"`, 'Use default or json.');
  if (opts.job !== undefined || opts.step !== undefined) {
    throw new UserError('stackyard runs have one job and no steps: --job and --step are not supported', 'Leave them out: the log is the whole run\'s.');
  }
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const deployments = backend.deployments();
  const run = await findRun(deployments, ref, args[0]!);
  const offset = (opts.offset as number | undefined) ?? 0;
  if (opts.follow === true) return followLog(ctx, deployments, ref, run.id, offset);

  const lines: { timestamp: string; line: string }[] = [];
  let page = await deployments.logs(ref, run.id, { offset, count: (opts.count as number | undefined) ?? PAGE });
  lines.push(...page.lines);
  while (opts.all === true && page.nextToken !== undefined && page.lines.length > 0) {
    page = await deployments.logs(ref, run.id, { offset: Number(page.nextToken), count: PAGE });
    lines.push(...page.lines);
  }
  if (opts.output === 'json') return ctx.json({ lines, ...(page.nextToken !== undefined ? { nextToken: page.nextToken } : {}) });
  if (lines.length === 0) return ctx.out('No log lines available.');
  for (const line of lines) ctx.out(line.line);
};
