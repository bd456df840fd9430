/** `stack drift list|status`: a stack's drift runs and whether it has drifted, as `pulumi stack drift` shows them. */
import type { DriftRunUpdateView, DriftRunView } from '../../../shared/core/drift/views.js';
import { UserError } from '../../output/errors.js';
import { table } from '../format.js';
import type { CommandHandler } from '../types.js';

/** Runs fetched per call, as Pulumi's `defaultPageSize`. */
const PAGE_SIZE = 100;
/** Runs shown without --count or --all. */
const DEFAULT_COUNT = 10;

/** `succeeded (1 update, 1 delete)`: a phase's status and its changes other than `same`; `-` for none. */
function phase(update: DriftRunUpdateView | undefined): string {
  if (!update) return '-';
  const changes = Object.entries(update.resourceChanges ?? {})
    .filter(([op, count]) => op !== 'same' && count > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, count]) => `${count} ${op}`);
  return changes.length > 0 ? `${update.status} (${changes.join(', ')})` : update.status;
}

export const stackDriftList: CommandHandler = async (ctx, _args, opts) => {
  const count = opts.count as number | undefined;
  if (opts.all === true && count !== undefined && count > 0) throw new UserError('--all and --count are mutually exclusive');
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const want = count !== undefined && count > 0 ? count : opts.all === true ? Number.POSITIVE_INFINITY : DEFAULT_COUNT;
  const runs: DriftRunView[] = [];
  let total = 0;
  for (let page = 1; ; page++) {
    const answer = await backend.drift().listRuns(ref, page, Math.min(PAGE_SIZE, want - runs.length));
    total = answer.total;
    runs.push(...answer.driftRuns);
    if (runs.length >= want || runs.length >= total || answer.driftRuns.length === 0) break;
  }
  if (opts.output === 'json') return ctx.json({ driftRuns: runs, count: runs.length, total });
  if (runs.length === 0) return ctx.out('No drift detection runs found for this stack.');
  ctx.out(
    table(
      ['ID', 'CREATED', 'STATUS', 'DRIFT', 'DETECT', 'REMEDIATE'],
      runs.map((run) => [run.id, run.created, run.status, run.driftDetected ? 'yes' : 'no', phase(run.detectUpdate), phase(run.remediateUpdate)]),
    ),
  );
  ctx.out(`\nShowing ${runs.length} of ${total} drift run(s)`);
};

export const stackDriftStatus: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const status = await backend.drift().status(ref);
  if (opts.output === 'json') return ctx.json(status);
  const lines = [`Drift detected:    ${status.driftDetected ? 'yes' : 'no'}`];
  if (status.latestDriftRun) lines.push(`Latest drift run:  ${status.latestDriftRun}`);
  lines.push(`Run in progress:   ${status.runInProgress ? 'yes' : 'no'}`);
  ctx.out(lines.join('\n'));
};
