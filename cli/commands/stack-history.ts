/** `stack history`: a stack's updates, as text or Pulumi's `--json` shape, with how each one ended. */
import type { UpdateInfo } from '../backend/backend.js';
import { shownHistoryConfig } from './history-config.js';
import { formatTime, relativeTime } from './format.js';
import { requireExisting } from './stack.js';
import type { CommandHandler } from './types.js';

export const stackHistory: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const page = (opts.page as number | undefined) ?? 1;
  const updates = await backend.history(ref, page, (opts.pageSize as number | undefined) ?? 10);
  if (opts.json === true) {
    const reveal = opts.showSecrets === true;
    const out = [];
    for (const update of updates) {
      const config = await shownHistoryConfig(backend, ref, update.config ?? {}, reveal);
      const started = knownEpochMs(update.startTime);
      const ended = knownEpochMs(update.endTime) ?? started;
      out.push({
        version: update.version,
        kind: update.kind,
        // A service that sends no start time gets no made-up one (1970 would print as "56 years ago").
        ...(started !== undefined ? { startTime: formatTime(started) } : {}),
        message: update.message,
        environment: update.environment,
        config,
        ...(update.result ? { result: update.result } : {}),
        ...(update.result !== 'in-progress'
          ? { ...(ended !== undefined ? { endTime: formatTime(ended) } : {}), resourceChanges: update.resourceChanges ?? {} }
          : {}),
        ...(update.cancelledBy !== undefined ? { cancelledBy: update.cancelledBy } : {}),
        ...(update.endReason !== undefined ? { endReason: update.endReason } : {}),
        ...(update.endMessage !== undefined ? { endMessage: update.endMessage } : {}),
      });
    }
    return ctx.json(out);
  }
  if (updates.length === 0) {
    return ctx.out(page > 1 ? `No stack updates found on page '${page}'` : 'Stack has never been updated');
  }
  const lines: string[] = [];
  for (const update of updates) {
    const changes = update.resourceChanges ?? {};
    const start = knownEpochMs(update.startTime);
    const end = knownEpochMs(update.endTime) ?? start;
    const when = start === undefined ? 'at an unknown time' : opts.fullDates === true ? formatTime(start) : relativeTime(start);
    const took = start === undefined || end === undefined ? 'an unknown time' : `${Math.max(0, Math.round((end - start) / 1000))}s`;
    lines.push(
      `Version: ${update.version}`,
      `UpdateKind: ${update.kind}`,
      `Status: ${update.result}${howItEnded(update)}`,
      `Message: ${update.message}`,
      `+${changes.create ?? 0}-${changes.delete ?? 0}~${changes.update ?? 0} ${changes.same ?? 0} ` +
        `Updated ${when} took ${took}`,
    );
    for (const key of Object.keys(update.environment ?? {}).sort()) {
      if (update.environment[key]?.trim()) lines.push(`    ${key}: ${update.environment[key]}`);
    }
    lines.push('');
  }
  ctx.out(lines.join('\n'));
};

/** Beyond `failed` (Pulumi's result for all three): who cancelled the update, that its client abandoned it, or the policy check. */
function howItEnded(update: UpdateInfo): string {
  if (update.cancelledBy !== undefined) return ` (cancelled by ${update.cancelledBy})`;
  if (update.endReason === 'lease-expired') return ' (abandoned: its lease expired)';
  if (update.endReason === 'policy-bypassed') return ` (by the service's policy check: ${update.endMessage ?? 'a required policy pack did not run'})`;
  return '';
}

/** Epoch seconds from the wire as milliseconds; absent, null, zero or negative is unknown. */
function knownEpochMs(seconds: unknown): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}
