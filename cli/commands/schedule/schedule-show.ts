/**
 * `stack schedule list|get|pause|resume|remove`: reading and switching a stack's schedules, as `pulumi stack
 * schedule` does (pause and resume are Stackyard's own, on Pulumi Cloud's REST routes).
 */
import { table } from '../format.js';
import type { CommandHandler } from '../types.js';
import { printSchedule, scheduleKind, scheduleSettings, scheduleWhen, summarizeSchedule } from './schedule-summary.js';

export const stackScheduleList: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const all = await backend.schedules().list(ref);
  const count = opts.count as number | undefined;
  const shown = count !== undefined && count > 0 ? all.slice(0, count) : all;
  if (opts.output === 'json') return ctx.json({ schedules: shown.map(summarizeSchedule) });
  if (shown.length === 0) return ctx.out('No scheduled actions configured for this stack.');
  ctx.out(
    table(
      ['ID', 'TYPE', 'SETTINGS', 'SCHEDULE', 'NEXT RUN', 'LAST RUN', 'CREATED'],
      shown.map((s) => [
        s.id,
        scheduleKind(s),
        `${scheduleSettings(s)}${s.paused ? ' (paused)' : ''}`,
        scheduleWhen(s),
        s.nextExecution ?? '',
        s.lastExecuted ?? '',
        s.created,
      ]),
    ),
  );
};

export const stackScheduleGet: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  printSchedule(ctx, await backend.schedules().get(ref, args[0]!), opts.output);
};

const switchPaused =
  (paused: boolean): CommandHandler =>
  async (ctx, args, opts) => {
    const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
    const schedule = await backend.schedules().setPaused(ref, args[0]!, paused);
    if (opts.output === 'json') return ctx.json(summarizeSchedule(schedule));
    ctx.out(paused ? `Schedule '${schedule.id}' is paused.` : `Schedule '${schedule.id}' is resumed; next run: ${schedule.nextExecution ?? '(none)'}.`);
  };

export const stackSchedulePause = switchPaused(true);
export const stackScheduleResume = switchPaused(false);

export const stackScheduleRemove: CommandHandler = async (ctx, args, opts) => {
  const id = args[0]!;
  await ctx.confirm(opts.yes, `remove the schedule '${id}'`, `This will remove the schedule '${id}'!`, 'remove');
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await backend.schedules().remove(ref, id);
  ctx.out(`Schedule '${id}' has been removed.`);
};
