/**
 * `stack schedule edit <id>` (also `update`, `modify`): changes only the fields passed, as `pulumi stack schedule
 * edit` does — it reads the schedule, builds the full body of its kind from it and the flags, and reads it again.
 */
import type { ScheduleBody, ScheduleView } from '../../../shared/core/schedules/definitions.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { exclusive } from './schedule-new.js';
import { printSchedule, rawOperation, scheduleKind, scheduleTimestamp } from './schedule-summary.js';

interface EditFlags {
  cron?: string;
  once?: string;
  operation?: string;
  autoRemediate?: boolean;
  deleteAfterDestroy?: boolean;
}

/** Pulumi's validateScheduleEditFlags: which flags a schedule of each kind takes. */
function check(kind: string, flags: EditFlags): void {
  const refusals: [boolean, string][] =
    kind === 'raw'
      ? [
          [flags.autoRemediate !== undefined, '--auto-remediate is only valid for drift schedules'],
          [flags.deleteAfterDestroy !== undefined, '--delete-after-destroy is only valid for ttl schedules'],
        ]
      : kind === 'drift'
        ? [
            [flags.once !== undefined, '--once is not valid for drift schedules; use --cron'],
            [flags.operation !== undefined, '--operation is not valid for drift schedules'],
            [flags.deleteAfterDestroy !== undefined, '--delete-after-destroy is only valid for ttl schedules'],
          ]
        : [
            [flags.cron !== undefined, '--cron is not valid for ttl schedules; use --once'],
            [flags.operation !== undefined, '--operation is not valid for ttl schedules'],
            [flags.autoRemediate !== undefined, '--auto-remediate is only valid for drift schedules'],
          ];
  const refused = refusals.find(([given]) => given);
  if (refused) throw new UserError(refused[1]);
}

type Options = { remediateIfDriftDetected?: boolean; deleteAfterDestroy?: boolean };
const optionsOf = (schedule: ScheduleView) =>
  ((schedule.definition.request as { operationContext?: { options?: Options } }).operationContext?.options ?? {}) as Options;

function body(kind: string, existing: ScheduleView, flags: EditFlags): ScheduleBody {
  if (kind === 'drift') {
    return { scheduleCron: flags.cron ?? existing.scheduleCron, autoRemediate: flags.autoRemediate ?? optionsOf(existing).remediateIfDriftDetected === true };
  }
  if (kind === 'ttl') {
    const once = scheduleTimestamp(flags.once ?? existing.scheduleOnce ?? '', '--once');
    return { timestamp: once, deleteAfterDestroy: flags.deleteAfterDestroy ?? optionsOf(existing).deleteAfterDestroy === true };
  }
  const request = { ...existing.definition.request, ...(flags.operation !== undefined ? { operation: rawOperation(flags.operation) } : {}) };
  if (flags.cron !== undefined) return { scheduleCron: flags.cron, request };
  if (flags.once !== undefined) return { scheduleOnce: scheduleTimestamp(flags.once), request };
  return existing.scheduleCron ? { scheduleCron: existing.scheduleCron, request } : { scheduleOnce: scheduleTimestamp(existing.scheduleOnce ?? '', '--once'), request };
}

export const stackScheduleEdit: CommandHandler = async (ctx, args, opts) => {
  const flags = opts as EditFlags & Record<string, unknown>;
  exclusive(flags, [['cron', 'once']]);
  if ([flags.cron, flags.once, flags.operation, flags.autoRemediate, flags.deleteAfterDestroy].every((value) => value === undefined)) {
    throw new UserError('at least one of --cron, --once, --operation, --auto-remediate, or --delete-after-destroy must be provided');
  }
  const id = args[0]!;
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const schedules = backend.schedules();
  const existing = await schedules.get(ref, id);
  const kind = scheduleKind(existing);
  check(kind, flags);
  await schedules.update(ref, kind, id, body(kind, existing, flags));
  printSchedule(ctx, await schedules.get(ref, id), opts.output);
};
