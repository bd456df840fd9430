/** `stack schedule new` (also `create`, `setup`): a raw, drift or TTL schedule, as `pulumi stack schedule new`. */
import type { ScheduleBody } from '../../../shared/core/schedules/definitions.js';
import type { ScheduleKind } from '../../../shared/ports/schedule-store.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { printSchedule, rawOperation, scheduleTimestamp } from './schedule-summary.js';

interface NewFlags {
  kind?: string;
  cron?: string;
  once?: string;
  operation?: string;
  autoRemediate?: boolean;
  deleteAfterDestroy?: boolean;
}

/** Pulumi's checks of which flags go with which kind, in its words (validateScheduleNewArgs). */
function check(kind: string, flags: NewFlags): ScheduleKind {
  const onlyDrift = '--auto-remediate is only valid for --kind=drift';
  const onlyTtl = '--delete-after-destroy is only valid for --kind=ttl';
  const refuse = (message: string): never => {
    throw new UserError(message);
  };
  switch (kind) {
    case 'raw':
      if (!flags.cron && !flags.once) refuse('one of --cron or --once is required for --kind=raw');
      if (!flags.operation) refuse('--operation is required for --kind=raw');
      if (flags.autoRemediate) refuse(onlyDrift);
      if (flags.deleteAfterDestroy) refuse(onlyTtl);
      return 'raw';
    case 'drift':
      if (!flags.cron) refuse('--cron is required for --kind=drift');
      if (flags.once) refuse('--once is not valid for --kind=drift; use --cron');
      if (flags.operation) refuse('--operation is not valid for --kind=drift');
      if (flags.deleteAfterDestroy) refuse(onlyTtl);
      return 'drift';
    case 'ttl':
      if (!flags.once) refuse('--once is required for --kind=ttl');
      if (flags.cron) refuse('--cron is not valid for --kind=ttl; use --once');
      if (flags.operation) refuse('--operation is not valid for --kind=ttl');
      if (flags.autoRemediate) refuse(onlyDrift);
      return 'ttl';
    default:
      return refuse(`invalid --kind "${kind}": must be one of raw, drift, ttl`);
  }
}

/** Flags cobra's MarkFlagsMutuallyExclusive keeps apart, with its message. */
export function exclusive(flags: Record<string, unknown>, groups: [string, string][]): void {
  for (const [a, b] of groups) {
    if (flags[a] !== undefined && flags[b] !== undefined) {
      const names = [a, b].map((name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)).join(' ');
      throw new UserError(`if any flags in the group [${names}] are set none of the others can be; [${names}] were all set`);
    }
  }
}

export const stackScheduleNew: CommandHandler = async (ctx, _args, opts) => {
  const flags = opts as NewFlags & Record<string, unknown>;
  exclusive(flags, [
    ['cron', 'once'],
    ['operation', 'autoRemediate'],
    ['operation', 'deleteAfterDestroy'],
    ['autoRemediate', 'deleteAfterDestroy'],
  ]);
  // Stackyard does not prompt for what is missing (docs/cli.md): it answers as `pulumi` does under --yes.
  if (!flags.kind) throw new UserError('--kind is required', 'Pass --kind raw, drift or ttl.');
  const kind = check(flags.kind.trim().toLowerCase(), flags);
  const once = flags.once ? scheduleTimestamp(flags.once) : undefined;
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  let body: ScheduleBody;
  if (kind === 'raw') {
    body = { ...(flags.cron ? { scheduleCron: flags.cron } : { scheduleOnce: once }), request: { operation: rawOperation(flags.operation!), inheritSettings: true } };
  } else if (kind === 'drift') {
    body = { scheduleCron: flags.cron, autoRemediate: flags.autoRemediate === true };
  } else {
    body = { timestamp: once, deleteAfterDestroy: flags.deleteAfterDestroy === true };
  }
  printSchedule(ctx, await backend.schedules().create(ref, kind, body), opts.output);
};
