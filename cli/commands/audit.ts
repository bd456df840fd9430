/** `audit ls`: an organization's audit log, newest first (organization admins). */
import { UserError } from '../output/errors.js';
import { formatTime, table } from './format.js';
import type { AuditInfo } from '../backend/access-backend.js';
import type { CommandHandler } from './types.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a duration back from now (`90m`, `24h`, `7d`) or a date/time (`2026-11-01`, RFC 3339). */
export function parseSince(text: string, now: number): number {
  const duration = /^([0-9]{1,6})([smhd])$/.exec(text);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]!]!;
  const time = Date.parse(text);
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text) && Number.isFinite(time)) return time;
  throw new UserError(`invalid --since '${text}'`, 'Give a duration such as 24h or 7d, or a date such as 2026-11-01 or 2026-11-01T12:00:00Z.');
}

export const auditLs: CommandHandler = async (ctx, _args, opts) => {
  const backend = await ctx.backend();
  const org = (opts.org as string | undefined) ?? (await backend.defaultOrg());
  const limit = (opts.limit as number | undefined) ?? 100;
  const entries = await backend.access().auditLog(org, {
    ...(typeof opts.since === 'string' ? { since: parseSince(opts.since, Date.now()) } : {}),
    ...(typeof opts.user === 'string' ? { actor: opts.user } : {}),
    ...(typeof opts.event === 'string' ? { event: opts.event } : {}),
    limit,
  });
  if (opts.json === true) {
    return ctx.json(entries.map((e) => ({ ...e, time: formatTime(e.time), ...(e.lastSeen !== undefined ? { lastSeen: formatTime(e.lastSeen) } : {}) })));
  }
  if (entries.length === 0) return ctx.out(`No audit log entries for organization '${org}'`);
  ctx.out(
    table(
      ['TIME', 'EVENT', 'ACTOR', 'SOURCE', 'DESCRIPTION'],
      entries.map((e) => [formatTime(e.time), e.outcome ? `${e.event} (${e.outcome})` : e.event, e.actor, e.sourceIp ?? '', describe(e)]),
    ),
  );
};

/** A refusal tally says how many refusals it stands for, where, and until when; other entries say what they say. */
function describe(entry: AuditInfo): string {
  if (entry.count === undefined) return entry.description;
  const times = entry.count === 1 ? 'once' : `${entry.count} times`;
  const where = entry.route ? ` at ${entry.route}` : '';
  const until = entry.count > 1 && entry.lastSeen !== undefined ? `, last ${formatTime(entry.lastSeen)}` : '';
  return `${times}${where}${until}: ${entry.description}${entry.count > 1 ? ' (the first)' : ''}`;
}
